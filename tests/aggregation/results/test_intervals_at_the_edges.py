"""Intervals at the edges (issue 14, item 5): when the whole interval for a report fraction lies outside
[q_other, p], clipping would show [0, 0] or [1, 1] as if certain. The option is flagged as inconsistent
with the mechanism, with its unclipped bounds, on the API, the dashboard and the estimates CSV; a count
of 0 or n has a standard error above 0."""

import csv
import io
import json

import numpy as np
import pytest
from django.urls import reverse

import ldp
from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.support import store


@pytest.fixture
def all_no(db, owner):
    """q-RR q = 0.5, and 30 of 30 reports "no" (option 1): under the mechanism a "no" report is at most
    75% likely, so 30 of 30 does not fit it."""
    survey = builder.create_survey("edges", "Edges", [QuestionSpec("Cheated?", "qrr", q="0.5")],
                                   status=Survey.Status.OPEN, epsilon_budget=10.0)
    survey.researchers.add(owner)
    question = survey.ordered_questions()[0]
    store(survey, {question: np.ones(30, dtype=np.int64)})
    return survey


def test_ldp_flags_an_interval_wholly_outside_zero_one_and_keeps_its_unclipped_bounds():
    e = ldp.debias([0, 30], 30, 0.75, 0.25)
    assert e.ci_low == (0.0, 1.0) and e.ci_high == (0.0, 1.0)  # clipped: looks certain
    assert e.inconsistent == (True, True)
    assert e.ci_high_unclipped[0] < 0 and e.ci_low_unclipped[1] > 1
    assert e.to_dict()["inconsistent"] == [True, True]


def test_ldp_does_not_flag_an_interval_that_reaches_into_zero_one():
    e = ldp.debias([12, 18], 30, 0.75, 0.25)
    assert e.inconsistent == (False, False)
    assert e.ci_low_unclipped[0] <= e.ci_low[0] + 1e-12


def test_a_count_of_zero_or_n_has_a_standard_error_above_zero():
    e = ldp.debias([0, 30], 30, 0.75, 0.25)
    assert all(se > 0 for se in e.std_error)
    inside = ldp.debias([12, 18], 30, 0.75, 0.25)  # elsewhere the plug-in one, unchanged
    assert inside.std_error[0] == pytest.approx(np.sqrt(0.4 * 0.6 / 30) / 0.5)


def test_the_api_flags_it_with_the_unclipped_bounds(client, owner, all_no):
    client.force_login(owner)
    data = client.get(reverse("aggregation:api-estimates", args=[all_no.slug]) + "?interval=wilson").json()
    options = data["questions"][0]["options"]
    assert [o["inconsistent"] for o in options] == [True, True]
    assert options[0]["ci_high_unclipped"] < 0 < options[0]["std_error"]
    assert options[1]["ci_low_unclipped"] > 1


def test_the_openapi_schema_documents_the_flag(client, owner):
    client.force_login(owner)
    schema = json.loads(client.get(reverse("aggregation:api-schema")).content)["components"]["schemas"]
    assert {"inconsistent", "ci_low_unclipped", "ci_high_unclipped"} <= set(schema["OptionEstimate"]["properties"])


def test_the_dashboard_says_inconsistent_and_shows_the_unclipped_interval(client, owner, all_no):
    client.force_login(owner)
    query = "?margin=0.5&interval=wilson"
    html = client.get(reverse("aggregation:dashboard", args=[all_no.slug]) + query).content.decode()
    assert "inconsistent with the mechanism" in html and "These reports do not fit the mechanism." in html
    assert "(unclipped: " in html
    assert "0.0% – 0.0%" not in html and "100.0% – 100.0%" not in html


def test_the_estimates_csv_has_the_flag_and_the_unclipped_bounds(client, owner, all_no):
    client.force_login(owner)
    body = client.get(reverse("aggregation:export-estimates", args=[all_no.slug]) + "?interval=wilson").content
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    assert [row["inconsistent"] for row in rows] == ["true", "true"]
    assert float(rows[0]["ci_high_unclipped"]) < 0 and float(rows[1]["ci_low_unclipped"]) > 1


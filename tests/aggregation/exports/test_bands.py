"""Report exports with the numbers sent as given in bands, ?direct=bands (surveys.aggregation.exports.direct_columns):
every
format is the whole export with each such number's value replaced by its band's lower end, the band recorded in the
codebook; the default width the narrowest the uniqueness check finds leaves nobody alone; anything else refused
naming the parameter, nothing prepared; the statement says so and links it."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections import Counter

import numpy as np
import pytest
from django.urls import reverse

from surveys.aggregation.models import PreparedExport
from surveys.aggregation.privacy import statement
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.collection.pages import parse
from tests.conftest import login

N = 120


@pytest.fixture
def people(db, owner, client):
    """Smoked? (qrr), age in years (direct number 18..99), region (direct, 4 options); N responses."""
    survey = builder.create_survey("people", "People", [
        QuestionSpec("Smoked?", "qrr", q="0.5"),
        QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "99", "1")),
        QuestionSpec("Region?", "direct", options=["North", "East", "South", "West"]),
    ], status=Survey.Status.OPEN, retention_days=30)
    survey.researchers.add(owner)
    rng = np.random.default_rng(44)
    questions = list(plan.of(survey))
    ages = np.clip(rng.normal(22, 12, N).astype(int), 0, 81)
    builder.write_responses(survey, {questions[0].id: rng.integers(0, 2, N), questions[1].id: ages,
                                     questions[2].id: rng.choice(4, N, p=[0.7, 0.1, 0.1, 0.1])})
    login(client, owner)
    return survey


def fetch(client, survey, fmt, query=""):
    response = client.get(reverse(f"aggregation:export-reports-{fmt}", args=[survey.slug]) + query)
    assert response.status_code == 200, response.content[:300]
    return b"".join(response.streaming_content) if response.streaming else response.content, response


def age_key(survey):
    return list(plan.of(survey))[1].key


def banded(value, width):
    """The band's lower end of an age in years (lo = 18)."""
    return 18 + width * ((int(value) - 18) // width)


def test_reports_csv_in_bands_is_reports_csv_with_each_age_its_bands_lower_end(client, people):
    whole = list(csv.reader(io.StringIO(fetch(client, people, "csv")[0].decode())))
    key = age_key(people)
    in_bands = list(csv.reader(io.StringIO(fetch(client, people, "csv", f"?direct=bands&band={key}:10")[0]
                                           .decode())))
    column = whole[0].index(key)
    expected = [whole[0]] + [[str(banded(cell, 10)) if i == column else cell for i, cell in enumerate(row)]
                             for row in whole[1:]]
    assert in_bands == expected and len(in_bands) == N + 1
    assert {int(row[column]) % 10 for row in in_bands[1:]} == {8}  # 18, 28, ...: bands start at lo
    assert PreparedExport.objects.filter(format="csv").count() == 2  # each its own file


def test_reports_json_in_bands_and_its_codebook_record_each_band(client, people):
    key = age_key(people)
    whole = json.loads(fetch(client, people, "json")[0])
    body, response = fetch(client, people, "json", f"?direct=bands&band={key}:5")
    in_bands = json.loads(body)
    for response_row in whole["responses"]:
        response_row["reports"][key] = banded(response_row["reports"][key], 5)
    assert in_bands["responses"] == whole["responses"]
    entry = next(q for q in in_bands["codebook"]["questions"] if q["key"] == key)
    assert entry["band"] == {"width": "5", "steps": 5, "value": "the lower end of its band: 18 + 5 * floor((x - 18)"
                                                                  " / 5), x the number as given; the last band ends at "
                                                                  "99"}
    assert all("band" not in q for q in in_bands["codebook"]["questions"] if q["key"] != key)
    book = json.loads(client.get(response["Link"].split(">")[0][1:]).content)  # the prepared file's codebook
    assert book["direct"] == "banded" and next(q for q in book["questions"] if q["key"] == key)["band"]["width"] == "5"
    assert "direct" not in json.loads(client.get(fetch(client, people, "json")[1]["Link"].split(">")[0][1:]).content)


@pytest.mark.parametrize("fmt", ["dta", "sav"])
def test_stata_and_spss_files_in_bands_hold_each_bands_lower_end(client, people, fmt):
    import pandas as pd

    key = age_key(people)

    def frame(query):
        data = fetch(client, people, fmt, query)[0]
        if fmt == "dta":
            return pd.read_stata(io.BytesIO(data), convert_categoricals=False)
        with tempfile.NamedTemporaryFile(suffix=".sav") as file:
            file.write(data)
            file.flush()
            return pd.read_spss(file.name, convert_categoricals=False)

    whole, in_bands = frame(""), frame(f"?direct=bands&band={key}:20")
    assert list(in_bands.columns) == list(whole.columns) and len(in_bands) == N
    assert list(in_bands[key]) == [banded(age, 20) for age in whole[key]]
    other = [c for c in whole.columns if c != key]
    assert in_bands[other].equals(whole[other])


def test_without_a_width_it_takes_the_narrowest_band_that_leaves_nobody_alone(client, people):
    key = age_key(people)
    whole = list(csv.reader(io.StringIO(fetch(client, people, "csv")[0].decode())))
    region, age = whole[0].index(list(plan.of(people))[2].key), whole[0].index(key)
    alone = {width: sum(1 for size in Counter((banded(row[age], width), row[region]) for row in whole[1:]).values()
                        if size == 1) for width in (5, 10, 20)}
    expected = next((w for w in (5, 10, 20) if alone[w] == 0), 20)
    in_bands = list(csv.reader(io.StringIO(fetch(client, people, "csv", "?direct=bands")[0].decode())))
    assert [row[age] for row in in_bands[1:]] == [str(banded(row[age], expected)) for row in whole[1:]]
    assert dict(statement.generated(people).bands)[list(plan.of(people))[1]] == expected


@pytest.mark.parametrize("query", [
    "?direct=bands&band={key}:3.5", "?direct=bands&band={key}:1", "?direct=bands&band=nope:5",
    "?direct=bands&band={key}:abc", "?direct=bands&band={key}:200", "?direct=bands&band={key}:-5",
    "?direct=bands&band={key}:5&band={key}:10", "?direct=bands&band={key}", "?band={key}:5",
    "?direct=omit&band={key}:5",
])
def test_a_bad_band_is_refused_naming_it_and_nothing_is_prepared(client, people, query):
    response = client.get(reverse("aggregation:export-reports-csv", args=[people.slug])
                          + query.format(key=age_key(people)))
    assert response.status_code == 400 and response.content.decode().startswith("band"), response.content
    assert not PreparedExport.objects.exists()


def test_bands_of_a_survey_without_a_number_sent_as_given_are_refused_naming_direct(client, owner, direct_survey):
    login(client, owner)
    response = client.get(reverse("aggregation:export-reports-csv", args=[direct_survey.slug]) + "?direct=bands")
    assert response.status_code == 400 and response.content.decode().startswith("direct")
    assert "no number sent as given" in response.content.decode()
    assert not PreparedExport.objects.exists()


def test_the_statement_says_exports_can_band_the_number_and_links_it(client, people):
    page = parse(client.get(reverse("aggregation:statement", args=[people.slug])).content)
    link = page.by_id("statement-bands").find("a")
    assert link.attrs["href"] == reverse("aggregation:export-reports-csv", args=[people.slug]) + "?direct=bands"
    width = dict(statement.generated(people).bands)[list(plan.of(people))[1]]
    assert page.by_id("statement-bands").text.startswith("An export can instead carry each number sent as given in "
                                                         "bands, the lower end of its band in place of its value")
    assert f"Question 2 (Age in years?, key {age_key(people)}): bands of {width} unless another width is given." \
        in page.text

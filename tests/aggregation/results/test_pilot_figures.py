"""Pilot figures (`ResultOptions.pilot`, the dashboard's "Show pilot figures"): below the planner's respondents
every section withholds its figures by default and shows them, each marked with the one rule's warning, when asked.

A 4-option k-RR question answered by 31 respondents is far below its planner at any margin the page offers: by
default its estimates are withheld, as a pilot figure they are shown, intervals inside 0-100%."""

import re

import pytest
from django.urls import reverse

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses


@pytest.fixture
def pilot_survey(db, owner):
    made = builder.create_survey("pilot", "Pilot", [
        QuestionSpec("Which drug?", "krr", epsilon=1.0, options=["None", "Cannabis", "Cocaine", "Other"]),
        QuestionSpec("Region?", "direct", options=["North", "South"]),
    ], status=Survey.Status.OPEN, epsilon_budget=5.0)
    made.researchers.add(owner)
    add_responses(made, 31, seed=8)
    return made


def page(client, owner, survey, query=""):
    client.force_login(owner)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)
    assert response.status_code == 200
    return response.content.decode()


def estimate_tables(html):
    return re.findall(r'<table class="estimates">.*?</table>', html, re.S)


@pytest.mark.parametrize("margin", ["0.05", "0.5"])
def test_a_pilots_estimates_are_withheld_by_default_at_any_margin(client, owner, pilot_survey, margin):
    html = page(client, owner, pilot_survey, f"?margin={margin}")
    assert len(estimate_tables(html)) == (0 if margin == "0.05" else 1)  # the region: enough for +-50 points
    assert html.count("estimates are not shown yet") == (2 if margin == "0.05" else 1)
    assert "Tick “Show pilot figures” above to see them, marked as such." in html


def test_pilot_figures_show_every_question_marked_with_intervals_inside_what_is_possible(client, owner,
                                                                                        pilot_survey):
    html = page(client, owner, pilot_survey, "?margin=0.5&pilot=on")
    tables = estimate_tables(html)
    assert len(tables) == 2  # both questions: the k-RR one as a pilot figure, the region with enough respondents
    marks = re.findall(r'<p class="notice pilot too-few" role="note"><strong class="pilot-mark">Pilot figures</strong> '
                       r'(Too few respondents: 31 of the \d+ needed for ±50.0 points at [\d.]+%\.[^<]*)</p>', html)
    assert len(marks) == 1 and "estimates are not shown yet" not in html
    bounds = [float(x) for table in tables
              for x in re.findall(r'<td class="num">(-?[\d.]+)% – (-?[\d.]+)%</td>', table) for x in x]
    assert len(bounds) == 2 * (4 + 2) and all(0.0 <= x <= 100.0 for x in bounds)
    assert '<input type="checkbox" name="pilot" checked' in html
    assert len(re.findall(r'<svg class="chart estimates" viewBox="0 0 \d+ \d+"', html)) == 2  # each with its chart


def test_pilot_figures_are_asked_on_the_dashboard_only(client, owner, pilot_survey):
    client.force_login(owner)
    refused = client.get(reverse("aggregation:api-estimates", args=[pilot_survey.slug]) + "?pilot=on")
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "pilot"

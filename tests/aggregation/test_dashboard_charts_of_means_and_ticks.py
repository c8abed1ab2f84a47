"""The dashboard of a survey with multi-select, numeric and ordinal questions: a numeric mean with its whiskers, a
histogram of a numeric question's bins, per-option bars for a multi-select (not adding up to 100%), an ordinal
question's levels with its mean score, and a planner on the mean in the question's units."""

import re

import pytest
from django.urls import reverse

from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import service as results
from surveys.aggregation.templatetags.results_format import figures
from surveys.collection import builder
from tests.collection.pages import parse

ENOUGH = "?margin=0.5"


def dashboard(client, user, survey, query=""):
    client.force_login(user)
    return client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)


def section(html, question):
    return parse(html).find("section", **{"aria-labelledby": f"q{question.pk}-heading"})


@pytest.fixture
def answered(kinds_survey):
    builder.simulate_responses(kinds_survey, 800, {}, seed=51)
    return kinds_survey


def test_it_renders_every_kind_with_no_responses(client, owner, kinds_survey):
    response = dashboard(client, owner, kinds_survey)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('class="notice early"') == 5 and "chart mean" not in html and "chart histogram" not in html
    assert "on the mean at 95%; the estimate is not shown yet." in html


@pytest.mark.slow
def test_a_numeric_mean_shows_its_estimate_with_whiskers_and_a_table(client, owner, answered):
    html = dashboard(client, owner, answered, ENOUGH).content.decode()
    found = results.survey_results(answered, ResultOptions(margin=0.5)).questions[1]
    part = section(html, answered.ordered_questions()[1])
    svg = part.find("svg")
    assert svg.attrs["class"] == "chart mean" and svg.attrs["role"] == "img"
    assert part.find("circle", **{"class": "marker"}) is not None
    assert len(part.find_all("line", **{"class": "whisker"})) == 3
    mean, low, high, se = figures(found.mean.mean, found.mean.ci_low, found.mean.ci_high, found.mean.std_error)
    assert svg.find("tspan", **{"class": "value"}).text == f"{mean} ({low} to {high})"
    assert f"mean {mean} (95% interval {low} to {high})" in svg.find("desc").text
    # The whole row: the figure, its interval and its standard error with one number of decimals.
    row = part.find("table", **{"class": "estimates mean-estimate"}).find("tbody").find("tr")
    assert [cell.text for cell in row.find_all("th") + row.find_all("td")] == ["Mean", mean, f"{low} – {high}", se]
    assert len({len(text.partition(".")[2]) for text in (mean, low, high, se)}) == 1
    assert part.find("table", **{"class": "secondary"}) is None  # no per-option counts to show


@pytest.mark.slow
def test_a_numeric_histogram_is_drawn_as_columns_with_whiskers(client, owner, answered):
    part = section(dashboard(client, owner, answered, ENOUGH).content.decode(), answered.ordered_questions()[3])
    svg = part.find("svg")
    assert svg.attrs["class"] == "chart histogram"
    assert len(part.find_all("rect", **{"class": "bar"})) == 4
    assert [t.text for t in svg.find_all("text", **{"class": "tick"})][1:] == ["0 to 17", "18 to 34", "35 to 64",
                                                                               "65 to 120"]
    assert "Scale" in part.text and "0 to 120, steps of 1" in part.text


@pytest.mark.slow
def test_a_multi_select_shows_a_bar_per_option_that_need_not_add_up(client, owner, answered):
    part = section(dashboard(client, owner, answered, ENOUGH).content.decode(), answered.ordered_questions()[0])
    assert part.find("svg").attrs["class"] == "chart estimates" and len(part.find_all("rect", **{"class": "bar"})) == 4
    assert "need not add up to 100%" in part.find("p", **{"class": "note multi-key"}).text
    assert "Sums to 100%" not in part.text


@pytest.mark.slow
def test_an_ordinal_question_shows_its_levels_and_its_mean_score(client, owner, answered):
    html = dashboard(client, owner, answered, ENOUGH).content.decode()
    part = section(html, answered.ordered_questions()[4])
    found = results.survey_results(answered, ResultOptions(margin=0.5)).questions[4]
    assert [svg.attrs["class"] for svg in part.find_all("svg")] == ["chart estimates", "chart mean"]
    facts = part.find("p", **{"class": "mean-facts"}).text
    mean, low, high, se = figures(found.mean.mean, found.mean.ci_low, found.mean.ci_high, found.mean.std_error)
    assert facts.startswith(f"Mean score: {mean} (95% interval {low} to {high}; standard error {se})")
    assert "Over the levels with a score: “Prefer not to say” is left out." in facts


@pytest.mark.slow
def test_the_mean_planner_speaks_in_units(client, owner, answered):
    part = section(dashboard(client, owner, answered).content.decode(), answered.ordered_questions()[2])
    planner = part.find("p", **{"class": "planner"}).text
    assert re.search(r"the margin on the mean at 95% is ±[\d.]+ \(worst case\)", planner), planner
    assert "For ±0.5 (the margin above as a share of the scale)" in planner


@pytest.mark.slow
def test_discrete_laplace_shows_its_noise_instead_of_a_channel(client, owner, answered):
    part = section(dashboard(client, owner, answered).content.decode(), answered.ordered_questions()[2])
    assert "Noise" in part.text and "steps²" in part.text and "Channel" not in part.text


def test_it_renders_every_kind_with_one_response(client, owner, kinds_survey):
    builder.simulate_responses(kinds_survey, 1, {}, seed=52)
    assert dashboard(client, owner, kinds_survey, "?margin=0.5").status_code == 200
    found = results.survey_results(kinds_survey).questions
    assert found[4].mean.n == 1 and found[1].mean.n == 1

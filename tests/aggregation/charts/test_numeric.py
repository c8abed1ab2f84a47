"""The geometry of multi-select, numeric and ordinal questions' SVG charts (surveys.aggregation.charts.numeric): a
mean's dot and whiskers placed on the question's own scale, a histogram's columns proportional to their estimates, and
nothing drawn before there is something to draw.

The dashboard of a survey with multi-select, numeric and ordinal questions: a numeric mean with its whiskers, a
histogram of a numeric question's bins, per-option bars for a multi-select (not adding up to 100%), an ordinal
question's levels with its mean score, and a planner on the mean in the question's units."""

import math
import re
from dataclasses import replace

import pytest
from django.urls import reverse

import ldp
from surveys.aggregation.charts import numeric as numeric_charts
from surveys.aggregation.charts.bars import LEFT, RIGHT
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import service as results
from surveys.aggregation.templatetags.results_format import figures
from surveys.collection import builder
from tests.collection.pages import parse


@pytest.fixture
def found(kinds_survey):
    builder.simulate_responses(kinds_survey, 600, {}, seed=61)
    return results.survey_results(kinds_survey).questions


def test_the_mean_sits_on_the_scale_from_lo_to_hi(found):
    result = found[1]  # 0..100
    chart = numeric_charts.mean_chart(result)
    at = lambda value: LEFT + (RIGHT - LEFT) * value / 100  # noqa: E731
    assert chart.mean_x == pytest.approx(at(result.mean.mean), abs=0.01)
    assert (chart.low_x, chart.high_x) == pytest.approx((at(result.mean.ci_low), at(result.mean.ci_high)), abs=0.01)
    assert [tick.text for tick in chart.ticks] == ["0", "50", "100"]
    assert chart.id == f"chart-mean-{result.question.id}" and chart.title and chart.description


@pytest.mark.slow
def test_a_mean_outside_its_scale_is_drawn_at_the_edge_and_said_as_it_is(found):
    result = replace(found[1], mean=ldp.MeanEstimate(-3.0, 2.0, 0.0, 1.0, 0.95, 600))
    chart = numeric_charts.mean_chart(result)
    # One number of decimals for the mean and its interval (a quarter-width of 0.25: two).
    assert chart.mean_x == LEFT and chart.value_text == "−3.00 (0.00 to 1.00)" and "mean −3.00 " in chart.description


def test_the_mean_score_sits_on_the_range_of_the_scores(found):
    chart = numeric_charts.mean_chart(found[4])  # scores 1..3
    assert [tick.text for tick in chart.ticks] == ["1", "2", "3"]
    assert LEFT <= chart.low_x <= chart.mean_x <= chart.high_x <= RIGHT


def test_histogram_columns_are_proportional_to_the_clipped_estimates(found):
    result = found[3]
    chart = numeric_charts.histogram(result)
    assert len(chart.columns) == 4
    tallest = max(chart.columns, key=lambda column: column.height)
    for column, row in zip(chart.columns, result.rows, strict=True):
        assert column.height / tallest.height == pytest.approx(row.clipped / max(r.clipped for r in result.rows),
                                                               abs=0.01)
        assert column.whisker_top <= column.whisker_bottom  # SVG y grows downward
    assert chart.top_text.endswith("%") and all(column.title for column in chart.columns)


def test_nothing_is_drawn_without_reports(kinds_survey):
    found = results.survey_results(kinds_survey).questions
    assert numeric_charts.mean_chart(found[1]) is None and numeric_charts.histogram(found[3]) is None
    assert numeric_charts.charts_of(found[1]) == (None, None)


def test_charts_of_picks_each_kinds_charts(found):
    enough = [replace(result, needed=0) for result in found]
    kinds = [tuple(type(chart).__name__ if chart else None for chart in numeric_charts.charts_of(r)) for r in enough]
    assert kinds == [("Chart", None), (None, "MeanChart"), (None, "MeanChart"), ("Histogram", None),
                     ("Chart", "MeanChart")]


@pytest.mark.slow
def test_a_mean_estimate_without_a_finite_mean_draws_nothing(found):
    nothing = ldp.MeanEstimate(math.nan, math.nan, 0, 10, 0.95, 0)
    assert numeric_charts.mean_chart(replace(found[2], mean=nothing)) is None


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

"""The geometry of multi-select, numeric and ordinal questions' SVG charts (surveys.aggregation.charts.numeric): a
mean's dot and whiskers placed on the question's own scale, a histogram's columns proportional to their estimates, and
nothing drawn before there is something to draw."""

import math
from dataclasses import replace

import pytest

import ldp
from surveys.aggregation.charts import numeric as numeric_charts
from surveys.aggregation.charts.bars import LEFT, RIGHT
from surveys.aggregation.results import service as results
from surveys.collection import builder


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

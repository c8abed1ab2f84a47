"""The SVG bar chart's geometry: bars, whiskers and the words for screen readers."""

import pytest

from surveys.aggregation.charts import bars as charts
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import service as results
from tests.aggregation.support import add_responses


@pytest.fixture
def found(survey):
    add_responses(survey, 80, seed=51)
    return results.survey_results(survey, ResultOptions(interval="wilson"))


def test_it_draws_one_bar_per_option_to_the_clipped_estimate(found):
    for result in found.questions:
        chart = charts.estimate_chart(result)
        assert len(chart.bars) == len(result.question.options)
        for bar, row in zip(chart.bars, result.rows, strict=True):
            assert bar.bar_width == pytest.approx((charts.RIGHT - charts.LEFT) * row.clipped, abs=0.01)
            assert charts.LEFT <= bar.whisker_low <= bar.whisker_high <= charts.RIGHT


def test_its_whiskers_are_the_confidence_interval(found):
    result = found.questions[2]
    chart = charts.estimate_chart(result)
    for bar, row in zip(chart.bars, result.rows, strict=True):
        assert bar.whisker_low == charts.x(row.ci_low) and bar.whisker_high == charts.x(row.ci_high)


@pytest.mark.slow
def test_its_description_says_every_estimate_and_interval(found):
    result = found.questions[3]
    chart = charts.estimate_chart(result)
    for row in result.rows:
        assert f"{row.label}: {charts.percent(row.clipped)}, 95% interval" in chart.description
    assert "clipped to 0–100% (post-processed)" in chart.description
    assert chart.title and chart.id == f"chart-{result.question.id}"


def test_it_draws_nothing_before_any_report(survey):
    assert all(charts.estimate_chart(r) is None for r in results.survey_results(survey).questions)


def test_it_shortens_long_labels_in_the_chart_only(survey):
    option = survey.questions.get(order=3).options.get(order=0)
    option.label = "A very long answer label that would not fit on one line of the chart"
    option.save()
    add_responses(survey, 10, seed=52)
    result = results.survey_results(survey).questions[2]
    label = charts.estimate_chart(result).bars[0].label
    assert len(label) == charts.LABEL_CHARS and label.endswith("…")
    assert result.question.options[0] == option.label


def test_it_prints_negative_estimates_with_a_minus_sign_and_undefined_ones_as_a_dash():
    assert charts.percent(-0.0123) == "−1.2%"
    assert charts.percent(float("nan")) == "–"

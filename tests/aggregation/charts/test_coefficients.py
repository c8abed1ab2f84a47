"""The forest plot's geometry (surveys.aggregation.charts.coefficients), whole: where each dot, whisker and tick sits,
computed here from the axis rule (odds ratios: a log axis from min(lows, 1/1.5) to max(highs, 1.5), within
0.01..100; a linear model's coefficients: a plain axis over the ends and 0, 5% wider each side), ends beyond
the axis clipped to it."""

import math
from types import SimpleNamespace

from surveys.aggregation.charts.bars import LEFT, RIGHT
from surveys.aggregation.charts.coefficients import forest_chart
from surveys.aggregation.regression.questions import LINEAR, LOGISTIC


def fitted(kind, values, lows, highs):
    """What the chart reads of a fitted model: the intercept first, then one term per row."""
    terms = [SimpleNamespace(label=label) for label in ("Intercept", "Female", "Age band: 35+", "Smoker")]
    figures = {"odds_ratio": values, "odds_ratio_low": lows, "odds_ratio_high": highs} if kind == LOGISTIC else {
        "odds_ratio": None, "odds_ratio_low": None, "odds_ratio_high": None}
    return SimpleNamespace(kind=kind, terms=terms, estimate=values, ci_low=lows, ci_high=highs, confidence=0.95,
                           outcome=SimpleNamespace(order=1, id=7), **figures)


def test_odds_ratios_sit_on_a_log_axis_around_1_with_ends_past_100_clipped():
    chart = forest_chart(fitted(LOGISTIC, (0.3, 2.0, 0.5, 50.0), (0.1, 1.2, 0.2, 10.0), (0.9, 3.5, 0.9, 400.0)))
    lo, hi = math.log(0.2), math.log(100.0)

    def x(value):
        return round(LEFT + (RIGHT - LEFT) * (min(hi, max(lo, math.log(value))) - lo) / (hi - lo), 2)

    assert [(r.dot_x, r.whisker_low, r.whisker_high) for r in chart.rows] == [
        (x(2.0), x(1.2), x(3.5)), (x(0.5), x(0.2), x(0.9)), (x(50.0), x(10.0), RIGHT)]
    assert chart.null_x == x(1.0) and chart.rows[0].dot_x - chart.null_x == chart.null_x - chart.rows[1].dot_x
    # Each label centred on its tick, but the ends' inside the chart: "0.2" starts at its tick, "100" ends at it.
    assert [(t.x, t.text, t.anchor) for t in chart.ticks] == [
        (x(t), f"{t:g}", {0.2: "start", 100: "end"}.get(t, "middle")) for t in (0.2, 0.5, 1, 2, 5, 10, 20, 50, 100)]
    assert [r.label for r in chart.rows] == ["Female", "Age band: 35+", "Smoker"]
    assert [(r.text_y, r.whisker_y, r.cap_top, r.cap_bottom) for r in chart.rows] == [
        (4 + i * 44 + 14, 4 + i * 44 + 27, 4 + i * 44 + 21, 4 + i * 44 + 33) for i in range(3)]


def test_a_linear_models_coefficients_sit_on_a_plain_axis_around_0():
    chart = forest_chart(fitted(LINEAR, (1.0, 2.0, -1.0, 0.5), (0.0, 1.0, -3.0, -0.5), (2.0, 3.0, 1.0, 1.5)))
    span = 3.0 - (-3.0)
    lo, hi = -3.0 - 0.05 * span, 3.0 + 0.05 * span

    def x(value):
        return round(LEFT + (RIGHT - LEFT) * (value - lo) / (hi - lo), 2)

    assert [(r.dot_x, r.whisker_low, r.whisker_high) for r in chart.rows] == [
        (x(2.0), x(1.0), x(3.0)), (x(-1.0), x(-3.0), x(1.0)), (x(0.5), x(-0.5), x(1.5))]
    assert chart.null_x == x(0.0) == (LEFT + RIGHT) / 2
    assert [(t.x, t.anchor) for t in chart.ticks] == [(x(-3.0), "start"), (x(0.0), "middle"), (x(3.0), "end")]


def test_an_intercept_only_model_has_no_chart():
    found = fitted(LOGISTIC, (0.3,), (0.1,), (0.9,))
    found.terms = found.terms[:1]
    assert forest_chart(found) is None

"""The analysis script's intervals (surveys.aggregation.scripts.python.intervals), imported directly: Wilson's with
continuity correction and Clopper-Pearson's against Newcombe's published table, Student t's quantile against scipy,
the planner's respondents needed against its formula."""

import math

import pytest
from scipy import stats

from surveys.aggregation.scripts.python import intervals

# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I: methods 4 (Wilson's score
# with continuity correction) and 5 (Clopper-Pearson), at 95%, to the four decimals printed there.
NEWCOMBE = {(81, 263): ((0.2535, 0.3682), (0.2527, 0.3676)), (15, 148): ((0.0598, 0.1644), (0.0578, 0.1617)),
            (0, 20): ((0.0, 0.2005), (0.0, 0.1684)), (1, 29): ((0.0018, 0.1963), (0.0009, 0.1776)),
            (29, 29): ((0.8544, 1.0), (0.8806, 1.0))}


@pytest.mark.parametrize(("x", "n"), list(NEWCOMBE))
def test_wilson_gives_newcombes_continuity_corrected_score_interval(x, n):
    assert intervals.wilson(x, n, 0.95) == pytest.approx(NEWCOMBE[x, n][0], abs=5e-5)


@pytest.mark.parametrize(("x", "n"), list(NEWCOMBE))
def test_clopper_pearson_gives_newcombes_exact_interval(x, n):
    assert intervals.clopper_pearson(x, n, 0.95) == pytest.approx(NEWCOMBE[x, n][1], abs=5e-5)


def test_clopper_pearson_ends_are_the_beta_quantiles():
    for x, n, level in ((3, 10, 0.9), (40, 57, 0.99), (1, 2, 0.5)):
        low = stats.beta.ppf((1 - level) / 2, x, n - x + 1)
        high = stats.beta.ppf(1 - (1 - level) / 2, x + 1, n - x)
        assert intervals.clopper_pearson(x, n, level) == pytest.approx((low, high), abs=1e-12)


def test_a_higher_level_gives_a_wider_wilson_interval():
    narrow, wide = intervals.wilson(30, 100, 0.8), intervals.wilson(30, 100, 0.99)
    assert wide[0] < narrow[0] < 0.3 < narrow[1] < wide[1]


@pytest.mark.parametrize(("level", "df"), [(0.95, 1), (0.95, 9), (0.9, 30), (0.99, 4), (0.5, 200)])
def test_t_value_is_students_two_sided_quantile(level, df):
    assert intervals.t_value(level, df) == pytest.approx(stats.t.ppf(1 - (1 - level) / 2, df), rel=1e-9)


def test_respondents_needed_is_the_planners_worst_case():
    q = {"key": "q1", "mechanism": {"p_exact": "3/4", "q_other_exact": "1/8"}}
    z = stats.norm.ppf(0.975)
    assert intervals.respondents_needed(q, 0.05, 0.95) == math.ceil(z * z / 4 / (0.05 ** 2 * 0.625 ** 2))


def test_respondents_needed_for_a_mean_takes_its_worst_case_variance(monkeypatch):
    monkeypatch.setitem(intervals.MEAN_VARIANCE, "q2", 9.0)
    q = {"key": "q2", "scale": {"lo": "0", "hi": "10", "step": "1"}}
    z = stats.norm.ppf(0.95)
    assert intervals.respondents_needed(q, 0.1, 0.9) == math.ceil(z * z * 9.0 / (0.1 * 10) ** 2)

"""ldp.stats.intervals against scipy and against the definitions, computed independently."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from ldp.stats import intervals
from tests.ldp.support import clopper_pearson_by_scipy, wilson_cc_by_root_finding

CONFIDENCES = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]


@pytest.mark.parametrize("confidence", CONFIDENCES)
def test_z_value_is_the_two_sided_normal_quantile(confidence):
    assert intervals.z_value(confidence) == pytest.approx(stats.norm.ppf(1 - (1 - confidence) / 2), rel=1e-12)


@pytest.mark.parametrize("confidence", [0.0, 0.3, 0.4999, 1.0, 1.5, -0.95, math.nan, "0.95", None, True])
def test_it_rejects_bad_confidence(confidence):
    with pytest.raises(ValueError, match="confidence"):
        intervals.z_value(confidence)
    with pytest.raises(ValueError, match="confidence"):
        intervals.wilson(3, 10, confidence)
    with pytest.raises(ValueError, match="confidence"):
        intervals.clopper_pearson(3, 10, confidence)


def regularized_beta_cases():
    rng = np.random.default_rng(11)
    a = np.concatenate([[1, 1, 0.5, 2, 50, 1000, 1e5], rng.uniform(0.5, 300, 40)])
    b = np.concatenate([[1, 3, 0.5, 200, 50, 1, 3e5], rng.uniform(0.5, 300, 40)])
    t = np.concatenate([[0.5, 1e-6, 0.3, 0.01, 0.5, 0.999, 0.25], rng.uniform(0, 1, 40)])
    return list(zip(a, b, t, strict=True))


@pytest.mark.parametrize("a, b, t", regularized_beta_cases())
def test_regularized_beta_matches_scipy(a, b, t):
    assert intervals.regularized_beta(t, a, b) == pytest.approx(special.betainc(a, b, t), rel=1e-9, abs=1e-13)


def clopper_pearson_cases():
    cases = [(0, 1), (1, 1), (0, 20), (1, 20), (10, 20), (19, 20), (20, 20), (1, 50), (49, 50),
             (3, 200), (100, 200), (0, 1000), (5, 1000), (500, 1000), (999, 1000),
             (12_345, 100_000), (370_000, 1_000_000)]
    return [(x, n, c) for x, n in cases for c in (0.9, 0.95, 0.999)]


@pytest.mark.parametrize("x, n, confidence", clopper_pearson_cases())
def test_clopper_pearson_matches_scipy_beta_quantiles(x, n, confidence):
    low, high = intervals.clopper_pearson(x, n, confidence)
    expected_low, expected_high = clopper_pearson_by_scipy(x, n, confidence)
    assert low == pytest.approx(expected_low, rel=1e-9, abs=1e-13)
    assert high == pytest.approx(expected_high, rel=1e-9, abs=1e-13)


@pytest.mark.parametrize("n", [1, 2, 5, 50, 1000])
@pytest.mark.parametrize("confidence", [0.9, 0.999, 1 - 1e-6, 1 - 1e-9])
def test_clopper_pearson_has_its_closed_form_at_the_ends(n, confidence):
    """x = n: the lower end solves t^n = alpha/2; x = 0: the upper end solves (1 - t)^n = alpha/2. Far in a tail, where
    I_t is a tiny probability, a stop on its absolute rounding would be 1e-7 off, and so would the upper end found
    in the upper tail (I_t = 1 - alpha/2: 1 minus the rounding)."""
    end = ((1 - confidence) / 2) ** (1 / n)
    assert intervals.clopper_pearson(n, n, confidence) == (pytest.approx(end, rel=1e-9), 1.0)
    assert intervals.clopper_pearson(0, n, confidence) == (0.0, pytest.approx(1 - end, rel=1e-9, abs=1e-15))


@pytest.mark.parametrize("x, n, confidence", [(7, 40, 0.95), (0, 15, 0.9), (33, 33, 0.99), (1, 300, 0.95)])
def test_clopper_pearson_tail_probabilities_are_exactly_alpha_over_two(x, n, confidence):
    """The defining property: P(X >= x | L) = alpha/2 = P(X <= x | U)."""
    alpha = 1 - confidence
    low, high = intervals.clopper_pearson(x, n, confidence)
    if x > 0:
        assert stats.binom.sf(x - 1, n, low) == pytest.approx(alpha / 2, rel=1e-7)
    if x < n:
        assert stats.binom.cdf(x, n, high) == pytest.approx(alpha / 2, rel=1e-7)


def wilson_cases():
    cases = [(0, 1), (1, 1), (0, 5), (2, 5), (5, 5), (0, 50), (1, 50), (25, 50), (49, 50), (50, 50),
             (3, 200), (150, 200), (199, 200), (4_321, 10_000)]
    return [(x, n, c) for x, n in cases for c in (0.5, 0.9, 0.95, 0.99)]


@pytest.mark.parametrize("x, n, confidence", wilson_cases())
def test_wilson_is_the_continuity_corrected_score_interval(x, n, confidence):
    expected = wilson_cc_by_root_finding(x, n, confidence)
    assert intervals.wilson(x, n, confidence) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("x, n, published", [
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table II, method 4 (score, continuity corrected).
    (81, 263, (0.2535, 0.3682)),
    (15, 148, (0.0598, 0.1644)),
    (0, 20, (0.0000, 0.2005)),
    (1, 29, (0.0018, 0.1963)),
])
def test_wilson_matches_newcombes_published_examples(x, n, published):
    low, high = intervals.wilson(x, n, 0.95)
    assert (round(low, 4), round(high, 4)) == published


@pytest.mark.parametrize("function", [intervals.wilson, intervals.clopper_pearson])
@pytest.mark.parametrize("n", [1, 7, 60])
def test_intervals_contain_the_observed_rate_and_move_with_the_count(function, n):
    previous = (-1.0, -1.0)
    for x in range(n + 1):
        low, high = function(x, n, 0.95)
        assert 0.0 <= low <= x / n <= high <= 1.0
        assert low >= previous[0] and high >= previous[1]
        previous = (low, high)
        wider = function(x, n, 0.99)
        assert wider[0] <= low and wider[1] >= high


def test_the_default_interval_is_wilson_and_exact_is_clopper_pearson():
    assert intervals.INTERVALS == {"wilson": intervals.wilson, "exact": intervals.clopper_pearson}

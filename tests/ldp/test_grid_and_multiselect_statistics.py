"""Statistics of the 1-bit mean, discrete Laplace and multi-select estimates: bias, variance, coverage.

Exact where the count of reports has a known law (the 1-bit mean's 1-reports are Binomial(n, lambda)
for i.i.d. answers; a multi-select option ticked by c of n respondents has Binomial(c, p) +
Binomial(n - c, q) 1-bits); seeded simulations through randomize() -> histogram()/counts() ->
estimate otherwise, with tolerances derived from standard errors as stated next to each assertion.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp

# Seeded simulations of thousands of surveys: seconds per case.
pytestmark = pytest.mark.slow
REPS = 4000
N = 300
# Coverage by simulation: with R surveys, a 95% interval's observed coverage is Binomial(R, 0.95) / R.
COVERAGE_REPS = 2000
FLOOR = 0.93


def test_the_coverage_floor_is_far_below_what_a_correct_interval_shows():
    # A true 95% interval shows < 93% in 2000 surveys with probability ~3e-5 (4.1 standard errors);
    # one at 90% shows >= 93% with probability ~5e-6: the simulated checks separate the two.
    assert stats.binom.cdf(math.ceil(FLOOR * COVERAGE_REPS) - 1, COVERAGE_REPS, 0.95) < 1e-4
    assert stats.binom.sf(math.ceil(FLOOR * COVERAGE_REPS) - 1, COVERAGE_REPS, 0.90) < 1e-4


def panel(steps: int, shape: str, n: int) -> np.ndarray:
    """True grid indexes of n respondents: all at an end, in the middle, split between the ends, or spread."""
    if shape == "low":
        return np.zeros(n, dtype=np.int64)
    if shape == "high":
        return np.full(n, steps, dtype=np.int64)
    if shape == "middle":
        return np.full(n, steps // 2, dtype=np.int64)
    if shape == "ends":
        return np.where(np.arange(n) % 2 == 0, 0, steps).astype(np.int64)
    return (np.arange(n) * 7919 % (steps + 1)).astype(np.int64)  # spread over the grid


def simulated_means(m, truth: np.ndarray, reps: int, rng: np.random.Generator) -> list:
    """`reps` surveys of the same panel, each randomized and estimated through the real code path."""
    reports = m.randomize(np.tile(truth, reps), rng).reshape(reps, truth.size)
    return [m.estimate_mean(*m.histogram(row)) for row in reports]


def grid_mean(m, truth: np.ndarray) -> float:
    return float(m.lo) + float(m.step) * truth.mean()


# --- bias and variance -------------------------------------------------------------------------

NUMERIC = [ldp.OneBitMean(1.0, "0", "10", "1"), ldp.OneBitMean(4.0, "-5", "5", "0.5"),
           ldp.DiscreteLaplace(1.0, "0", "10", "1"), ldp.DiscreteLaplace(6.0, "-5", "5", "0.5")]


@pytest.fixture(scope="module", params=[(m, shape) for m in NUMERIC for shape in ("spread", "ends")],
                ids=lambda p: f"{p[0].name}-{p[0].epsilon:g}-{p[1]}")
def simulated(request):
    m, shape = request.param
    truth = panel(m.steps, shape, N)
    return m, truth, simulated_means(m, truth, REPS, np.random.default_rng(400 + m.steps + int(m.epsilon)))


def test_the_mean_estimate_is_unbiased(simulated):
    m, truth, estimates = simulated
    means = np.array([e.mean for e in estimates])
    # Var of one survey's estimate, given the panel, is the mean of the per-report variances over n.
    variance = np.mean([m.report_variance(int(i)) for i in truth]) / N
    # 5 standard errors of the mean of REPS estimates: a correct estimator fails with p ~ 6e-7.
    assert abs(means.mean() - grid_mean(m, truth)) < 5 * math.sqrt(variance / REPS)


def test_the_empirical_variance_matches_the_per_report_variances(simulated):
    m, truth, estimates = simulated
    means = np.array([e.mean for e in estimates])
    variance = np.mean([m.report_variance(int(i)) for i in truth]) / N
    # The sample variance of R near-normal estimates has relative SE sqrt(2 / (R - 1)) = 0.022:
    # 10% is 4.5 of them.
    assert 0.10 >= 4.4 * math.sqrt(2 / (REPS - 1))
    assert np.var(means, ddof=1) == pytest.approx(variance, rel=0.10)


def test_the_standard_error_is_that_of_a_random_sample_of_respondents(simulated):
    """Both standard errors estimate the variance for i.i.d. respondents, which for a fixed panel adds the
    spread of its true values (so they are conservative there): the 1-bit mean's from the report fraction,
    (hi - lo)^2 lambda (1 - lambda) / (n (p - q)^2) with lambda the panel's mean rate; Laplace's from the
    sample variance, (step^2 Var(Z) + Var(x)) / n. The mean of R = 4000 squared SEs is within 5% (each is a
    300-report plug-in with relative SE <= 0.2, so the mean's is <= 0.003)."""
    m, truth, estimates = simulated
    if m.name == "onebit":
        lam = m.q_other + truth.mean() / m.steps * (m.p - m.q_other)
        expected = m.width**2 * lam * (1 - lam) / (N * (m.p - m.q_other) ** 2)
    else:
        expected = (float(m.step) ** 2 * (m.noise_variance + truth.var())) / N
    assert np.mean([e.std_error**2 for e in estimates]) == pytest.approx(expected, rel=0.05)


# --- coverage ------------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0, 8.0])
@pytest.mark.parametrize("n", [5, 10, 20, 50, 200])
def test_onebit_intervals_cover_exactly_at_least_93_percent_even_at_the_ends(epsilon, n):
    """i.i.d. answers with mean u: the 1-reports are Binomial(n, lambda), lambda = q + u (p - q), so the
    coverage is sum_x P(x) [interval(x) contains the mean], with every interval from estimate_mean."""
    m = ldp.OneBitMean(epsilon, "0", "10", "1")
    intervals = [m.estimate_mean([0, 1], [n - x, x]) for x in range(n + 1)]
    for u in (0.0, 0.05, 0.3, 0.5, 0.95, 1.0):
        lam = m.q_other + u * (m.p - m.q_other)
        mean = 10 * u
        covered = sum(stats.binom.pmf(x, n, lam) for x, e in enumerate(intervals) if e.ci_low <= mean <= e.ci_high)
        assert covered >= FLOOR, (u, covered)


@pytest.mark.parametrize("m", [ldp.OneBitMean(2.0, "0", "10", "1"), ldp.DiscreteLaplace(0.5, "0", "10", "1"),
                               ldp.DiscreteLaplace(2.0, "0", "10", "1"), ldp.DiscreteLaplace(8.0, "0", "10", "1"),
                               ldp.DiscreteLaplace(1.0, "0", "1", "1")],
                         ids=lambda m: f"{m.name}-{m.epsilon:g}-{m.steps}")
@pytest.mark.parametrize("n", [5, 10, 30, 200])
@pytest.mark.parametrize("shape", ["low", "high", "middle", "ends"])
def test_simulated_panels_are_covered_at_least_93_percent(m, n, shape):
    truth = panel(m.steps, shape, n)
    estimates = simulated_means(m, truth, COVERAGE_REPS, np.random.default_rng(n * 31 + len(shape) + m.steps))
    target = grid_mean(m, truth)
    coverage = np.mean([e.ci_low <= target <= e.ci_high for e in estimates])
    assert coverage >= FLOOR
    assert all(float(m.lo) <= e.ci_low <= e.ci_high <= float(m.hi) for e in estimates)


# --- multi-select per option --------------------------------------------------------------------


def count_pmf(ticked: int, n: int, p: float, q: float) -> np.ndarray:
    """Law of an option's 1-bits when `ticked` of n respondents ticked it: Bin(ticked, p) + Bin(n - ticked, q)."""
    return np.convolve(stats.binom.pmf(np.arange(ticked + 1), ticked, p),
                       stats.binom.pmf(np.arange(n - ticked + 1), n - ticked, q))


@pytest.mark.parametrize("m", [ldp.MultiSelect(1.0, 4), ldp.MultiSelect(4.0, 5, at_most=1),
                               ldp.MultiSelect(10.0, 3), ldp.MultiSelect(0.5, 8, at_most=3)],
                         ids=lambda m: f"eps{m.epsilon:g}-k{m.k}-{m.at_most}")
@pytest.mark.parametrize("n", [10, 30, 100, 500])
def test_multiselect_per_option_intervals_cover_exactly_at_least_93_percent(m, n):
    intervals = m.estimate(np.zeros(m.k, dtype=int), n)  # shape only
    assert len(intervals.ci_low) == m.k
    rows = [m.estimate([x] * m.k, n) for x in range(n + 1)]  # every option alike: one count each
    for ticked in sorted({0, 1, n // 2, n - 1, n}):
        pmf = count_pmf(ticked, n, m.p, m.q_other)
        truth = ticked / n
        covered = sum(pmf[x] for x, e in enumerate(rows) if e.ci_low[0] <= truth <= e.ci_high[0])
        assert covered >= FLOOR, (ticked, covered)


def test_multiselect_per_option_estimates_are_unbiased_with_the_unary_variance():
    m = ldp.MultiSelect(2.0, 5, at_most=2)
    fractions = np.array([0.6, 0.0, 0.3, 1.0, 0.1]) / 1.0
    n = 200
    ticks = np.round(fractions * n).astype(int)
    truth = np.zeros((n, m.k), dtype=np.uint8)
    start = 0
    for option, count in enumerate(ticks):  # handed out in turn: at most ceil(sum / n) = 2 per respondent
        truth[(start + np.arange(count)) % n, option] = 1
        start = (start + count) % n
    assert truth.sum(axis=1).max() <= 2
    rng = np.random.default_rng(77)
    reports = m.randomize(np.tile(truth, (REPS, 1)), rng).reshape(REPS, n, m.k)
    estimates = np.array([m.estimate(m.counts(r), n).estimate for r in reports])
    pi = ticks / n
    # Given the panel the 1-bits are Bin(c, p) + Bin(n - c, q): variance (c p(1-p) + (n-c) q(1-q)) / (n (p-q))^2.
    variance = (ticks * m.p * (1 - m.p) + (n - ticks) * m.q_other * (1 - m.q_other)) / (n * (m.p - m.q_other)) ** 2
    np.testing.assert_array_less(np.abs(estimates.mean(axis=0) - pi), 5 * np.sqrt(variance / REPS))
    np.testing.assert_allclose(estimates.var(axis=0, ddof=1), variance, rtol=0.10)

"""Statistical behaviour of the estimates: bias, variance, interval coverage.

Two kinds of tests:

* exact: the count of reports (or of 1-bits) for option j is Binomial(n, lambda_j) with
  lambda_j = q + pi_j (p - q), so the coverage of an interval is
  sum_x P(X = x) [interval(x) contains pi_j], computed with scipy.stats.binom and the
  intervals that each mechanism's own estimate() returns for every possible count x;
* seeded simulations through randomize() -> counts() -> estimate(), with tolerances derived
  from standard errors (stated next to each assertion), so that they are not flaky but a real
  bias, a wrong variance or a miscalibrated interval fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from tests.ldp.support import coverage_grid_mechanisms, describe, is_unary, report_rates, simulate_counts

# --- bias and variance ------------------------------------------------------------------

# Seeded simulations of thousands of surveys: seconds per case.
pytestmark = pytest.mark.slow
REPS = 4000
N = 300

CASES = [
    (ldp.QRandomizedResponse("0.5"), [0.7, 0.3]),
    (ldp.BitFlip(1.0), [0.9, 0.1]),
    (ldp.KaryRR(1.5, 4), [0.5, 0.3, 0.2, 0.0]),
    (ldp.KaryRR(3.0, 20), [0.4, 0.2, 0.1] + [0.05] * 6 + [0.0] * 11),
    (ldp.SymmetricUnary(1.0, 5), [0.4, 0.3, 0.2, 0.1, 0.0]),
    (ldp.OptimizedUnary(2.0, 6), [0.5, 0.25, 0.15, 0.1, 0.0, 0.0]),
]


@pytest.fixture(scope="module", params=CASES, ids=[describe(m) for m, _ in CASES])
def simulated(request):
    """REPS surveys of N respondents with i.i.d. answers, each estimated by estimate()."""
    m, pi = request.param
    rng = np.random.default_rng(1000 + 17 * m.k + int(100 * m.epsilon))
    counts = simulate_counts(m, pi, N, REPS, rng)
    estimates = np.array([m.estimate(c, N).estimate for c in counts])
    return m, np.asarray(pi), estimates


def test_estimates_are_unbiased(simulated):
    m, pi, estimates = simulated
    lam = report_rates(m, pi)
    variance = lam * (1 - lam) / (N * (m.p - m.q_other) ** 2)  # the design's formula
    standard_error_of_mean = np.sqrt(variance / REPS)
    # 5 standard errors per option (two-sided 5.7e-7; < 1e-4 over all ~40 options): a correct
    # estimator essentially never fails, a bias of 5 SE (0.001-0.01 here) always does.
    np.testing.assert_array_less(np.abs(estimates.mean(axis=0) - pi), 5 * standard_error_of_mean)


def test_empirical_variance_matches_the_variance_formula_within_ten_percent(simulated):
    m, pi, estimates = simulated
    formula = m.variance(pi, N)
    lam = report_rates(m, pi)
    np.testing.assert_allclose(formula, lam * (1 - lam) / (N * (m.p - m.q_other) ** 2), rtol=1e-12)
    # The relative SE of a sample variance over R reps is sqrt(2/(R-1) + kurt/R), with kurt
    # the excess kurtosis of a Binomial(N, lambda) count, (1 - 6 lam (1 - lam)) / (N lam (1 - lam)).
    kurtosis = (1 - 6 * lam * (1 - lam)) / (N * lam * (1 - lam))
    relative_se = np.sqrt(2 / (REPS - 1) + kurtosis / REPS)
    assert (0.10 >= 4 * relative_se).all(), "too few repetitions for a 10% bound to be >= 4 SE"
    np.testing.assert_allclose(estimates.var(axis=0, ddof=1), formula, rtol=0.10)


def test_the_standard_error_estimates_the_spread(simulated):
    m, pi, estimates = simulated
    # std_error plugs in the observed rate; averaged over reps it is close to the true SD
    # (plug-in bias O(1/N)); checked within 10% like the variance (SD has half the relative SE).
    rng = np.random.default_rng(5)
    counts = simulate_counts(m, pi, N, 200, rng)
    se = np.array([m.estimate(c, N).std_error for c in counts]).mean(axis=0)
    np.testing.assert_allclose(se, np.sqrt(m.variance(pi, N)), rtol=0.10)


# --- exact coverage -------------------------------------------------------------------

COVERAGE_EPSILONS = [0.5, 1.0, 2.0, 4.0]
COVERAGE_NS = [20, 50, 200]
TRUE_FRACTIONS = [0.0, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0]
FLOOR = {"wilson": 0.93, "exact": 0.95}


def counts_with(m, x: int, n: int) -> np.ndarray:
    """A valid count vector for m in which option 0 has count x (the rest absorb n - x)."""
    counts = np.zeros(m.k, dtype=np.int64)
    counts[0] = x
    if not is_unary(m):
        counts[1] = n - x  # one-of-k counts must add up to n
    return counts


def intervals_by_count(m, n: int, **options) -> tuple[np.ndarray, np.ndarray]:
    """Option 0's interval from m.estimate() for every possible count x = 0..n."""
    low, high = np.empty(n + 1), np.empty(n + 1)
    for x in range(n + 1):
        est = m.estimate(counts_with(m, x, n), n, **options)
        low[x], high[x] = est.ci_low[0], est.ci_high[0]
    return low, high


def exact_coverage(m, n: int, pi: float, low: np.ndarray, high: np.ndarray) -> float:
    lam = m.q_other + pi * (m.p - m.q_other)
    pmf = stats.binom.pmf(np.arange(n + 1), n, lam)
    return float(pmf[(low <= pi) & (pi <= high)].sum())


@pytest.mark.parametrize("interval", ["wilson", "exact"])
@pytest.mark.parametrize("epsilon", COVERAGE_EPSILONS)
def test_intervals_reach_their_coverage_exactly(memoized_intervals, epsilon, interval):
    """Nominal 95%: 'wilson' (continuity-corrected) >= 93%, 'exact' (Clopper-Pearson) >= 95%,
    for every mechanism, n in {20, 50, 200} and true fractions from 0 to 1."""
    failures, worst = [], (1.0, None)
    for m in coverage_grid_mechanisms(epsilon):
        for n in COVERAGE_NS:
            low, high = intervals_by_count(m, n, interval=interval)
            for pi in TRUE_FRACTIONS:
                coverage = exact_coverage(m, n, pi, low, high)
                worst = min(worst, (coverage, (describe(m), n, pi)))
                # 1e-12: the pmf sum of a covering set can round just below the bound.
                if coverage < FLOOR[interval] - 1e-12:
                    failures.append((describe(m), n, pi, round(coverage, 4)))
    assert not failures, f"{interval} coverage below {FLOOR[interval]}: {failures}"
    assert worst[0] < 1.0  # the grid is not vacuous: some case does miss sometimes


@pytest.mark.parametrize("interval", ["wilson", "exact"])
@pytest.mark.parametrize("m", [ldp.KaryRR(1.0, 5), ldp.SymmetricUnary(1.0, 4), ldp.OptimizedUnary(2.0, 5)],
                         ids=describe)
def test_simultaneous_intervals_guarantee_joint_coverage_exactly(memoized_intervals, m, interval):
    """Whatever the dependence between options, P(some interval misses) <= sum_j P(interval j
    misses) (Bonferroni). With the exact per-option miss probabilities of the simultaneous
    intervals that sum is <= 5%, so they hold jointly with probability >= 95%."""
    n = 200
    pi = np.arange(1, m.k + 1, dtype=float)
    pi /= pi.sum()
    low, high = intervals_by_count(m, n, interval=interval, simultaneous=True)
    misses = sum(1 - exact_coverage(m, n, p, low, high) for p in pi)
    assert misses <= 0.05
    marginal_low, marginal_high = intervals_by_count(m, n, interval=interval)
    unadjusted = sum(1 - exact_coverage(m, n, p, marginal_low, marginal_high) for p in pi)
    assert unadjusted > 0.05  # the plain 95% intervals carry no such guarantee


# --- simulated coverage -----------------------------------------------------------------

SIM_REPS = 3000
SIM_ALPHA = 1e-6  # per (case, option) binomial test; ~30 tests -> family-wise < 1e-4


@pytest.mark.parametrize("interval", ["wilson", "exact"])
@pytest.mark.parametrize("m, pi, n", [
    (ldp.KaryRR(4.0, 10), [0.5, 0.01, 0.49] + [0.0] * 7, 50),
    (ldp.OptimizedUnary(0.5, 3), [0.5, 0.49, 0.01], 200),
    (ldp.QRandomizedResponse("0.5"), [0.99, 0.01], 50),
], ids=["krr-k10-eps4-n50", "oue-k3-eps0.5-n200", "qrr-q0.5-n50"])
def test_simulated_coverage_agrees_with_the_exact_computation(memoized_intervals, m, pi, n, interval):
    rng = np.random.default_rng(4242 + n + m.k)
    counts = simulate_counts(m, pi, n, SIM_REPS, rng)
    covered = np.zeros(m.k, dtype=np.int64)
    for c in counts:
        est = m.estimate(c, n, interval=interval)
        covered += (np.array(est.ci_low) <= pi) & (np.asarray(pi) <= np.array(est.ci_high))
    low, high = intervals_by_count(m, n, interval=interval)  # option 0's rule is every option's
    for j, pi_j in enumerate(pi):
        expected = exact_coverage(m, n, pi_j, low, high)
        misses = SIM_REPS - int(covered[j])
        # Binomial test of the observed misses against the exact miss probability: about a
        # 5-SE tolerance; for coverage 0.95 with 3000 reps the SE is 0.004.
        if expected < 1.0:
            assert stats.binomtest(misses, SIM_REPS, 1 - expected).pvalue > SIM_ALPHA, (j, misses, expected)
        else:
            assert misses == 0
        observed = covered[j] / SIM_REPS
        assert observed >= FLOOR[interval] - 5 * math.sqrt(0.05 * 0.95 / SIM_REPS)


def test_simultaneous_intervals_cover_jointly_in_simulation(memoized_intervals):
    """k-ary RR counts are multinomial (dependent), so the joint coverage is simulated."""
    m, pi, n, reps = ldp.KaryRR(1.0, 5), np.array([0.4, 0.3, 0.2, 0.1, 0.0]), 200, 2000
    counts = simulate_counts(m, pi, n, reps, np.random.default_rng(99))
    joint = marginal = 0
    for c in counts:
        sim = m.estimate(c, n, simultaneous=True)
        plain = m.estimate(c, n)
        joint += bool(((np.array(sim.ci_low) <= pi) & (pi <= np.array(sim.ci_high))).all())
        marginal += bool(((np.array(plain.ci_low) <= pi) & (pi <= np.array(plain.ci_high))).all())
    # Bonferroni guarantees >= 95% jointly; with 2000 reps the binomial SE at 0.95 is 0.0049.
    # Require the observed joint coverage to be at least 0.95 - 3 SE (one-sided 1.3e-3).
    assert joint / reps >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps)
    assert marginal < joint  # unadjusted 95% intervals do not hold jointly as often

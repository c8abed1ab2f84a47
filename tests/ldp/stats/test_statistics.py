"""Statistical behaviour of the estimates: bias, variance, interval coverage.

Two kinds of tests:

* exact: the count of reports (or of 1-bits) for option j is Binomial(n, lambda_j) with
  lambda_j = q + pi_j (p - q), so the coverage of an interval is
  sum_x P(X = x) [interval(x) contains pi_j], computed with scipy.stats.binom and the
  intervals that each mechanism's own estimate() returns for every possible count x;
* seeded simulations through randomize() -> counts() -> estimate(), with tolerances derived
  from standard errors (stated next to each assertion), so that they are not flaky but a real
  bias, a wrong variance or a miscalibrated interval fails.

The 1-bit mean, discrete Laplace and multi-select estimates likewise: exact where the count of reports has a
known law (the 1-bit mean's 1-reports are Binomial(n, lambda) for i.i.d. answers; a multi-select option ticked
by c of n respondents has Binomial(c, p) + Binomial(n - c, q) 1-bits); seeded simulations through randomize() ->
histogram()/counts() -> estimate otherwise, with tolerances derived from standard errors as stated next to each
assertion."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from tests.ldp.support import coverage_grid_mechanisms, describe, is_unary, report_rates, simulate_counts

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


# --- the 1-bit mean, discrete Laplace and multi-select estimates ----------------------

# Coverage by simulation: with R surveys, a 95% interval's observed coverage is Binomial(R, 0.95) / R.
COVERAGE_REPS = 2000
COVERAGE_FLOOR = 0.93


def test_the_coverage_floor_is_far_below_what_a_correct_interval_shows():
    # A true 95% interval shows < 93% in 2000 surveys with probability ~3e-5 (4.1 standard errors);
    # one at 90% shows >= 93% with probability ~5e-6: the simulated checks separate the two.
    assert stats.binom.cdf(math.ceil(COVERAGE_FLOOR * COVERAGE_REPS) - 1, COVERAGE_REPS, 0.95) < 1e-4
    assert stats.binom.sf(math.ceil(COVERAGE_FLOOR * COVERAGE_REPS) - 1, COVERAGE_REPS, 0.90) < 1e-4


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
def simulated_mean(request):
    m, shape = request.param
    truth = panel(m.steps, shape, N)
    return m, truth, simulated_means(m, truth, REPS, np.random.default_rng(400 + m.steps + int(m.epsilon)))


def test_the_mean_estimate_is_unbiased(simulated_mean):
    m, truth, estimates = simulated_mean
    means = np.array([e.mean for e in estimates])
    # Var of one survey's estimate, given the panel, is the mean of the per-report variances over n.
    variance = np.mean([m.report_variance(int(i)) for i in truth]) / N
    # 5 standard errors of the mean of REPS estimates: a correct estimator fails with p ~ 6e-7.
    assert abs(means.mean() - grid_mean(m, truth)) < 5 * math.sqrt(variance / REPS)


def test_the_empirical_variance_matches_the_per_report_variances(simulated_mean):
    m, truth, estimates = simulated_mean
    means = np.array([e.mean for e in estimates])
    variance = np.mean([m.report_variance(int(i)) for i in truth]) / N
    # The sample variance of R near-normal estimates has relative SE sqrt(2 / (R - 1)) = 0.022:
    # 10% is 4.5 of them.
    assert 0.10 >= 4.4 * math.sqrt(2 / (REPS - 1))
    assert np.var(means, ddof=1) == pytest.approx(variance, rel=0.10)


def test_the_standard_error_is_that_of_a_random_sample_of_respondents(simulated_mean):
    """Both standard errors estimate the variance for i.i.d. respondents, which for a fixed panel adds the
    spread of its true values (so they are conservative there): the 1-bit mean's from the report fraction,
    (hi - lo)^2 lambda (1 - lambda) / (n (p - q)^2) with lambda the panel's mean rate; Laplace's from the
    sample variance, (step^2 Var(Z) + Var(x)) / n. The mean of R = 4000 squared SEs is within 5% (each is a
    300-report plug-in with relative SE <= 0.2, so the mean's is <= 0.003)."""
    m, truth, estimates = simulated_mean
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
        assert covered >= COVERAGE_FLOOR, (u, covered)


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
    assert coverage >= COVERAGE_FLOOR
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
        assert covered >= COVERAGE_FLOOR, (ticked, covered)


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

"""Statistical behaviour of the joint estimates: bias, variance, interval coverage, conditional
fractions, the independence test's size and power, the debiased effect size.

Seeded simulations through randomize() -> JointCounts.from_reports() -> ldp, with i.i.d.
answer pairs drawn from a known table (so the estimand is the population's joint fraction).
Every tolerance is derived from a standard error, stated next to the assertion.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.joint.tables import cell_variance
from tests.ldp.support import mechanism_named, simulate_joint

# Seeded simulations over a grid of mechanisms and tables: seconds per case.
pytestmark = pytest.mark.slow
TABLES = {
    "2x2 dependent": [[0.4, 0.1], [0.1, 0.4]],
    "2x2 near-empty": [[0.7, 0.25], [0.045, 0.005]],
    "3x3 with zeros": [[0.3, 0.05, 0.0], [0.1, 0.2, 0.01], [0.0, 0.04, 0.3]],
}
YES_NO_NAMES = ["qrr", "bitflip", "direct"]
K_NAMES = ["krr", "sue", "oue", "direct"]


def grid():
    """(table, A, B) over every ordered pair of mechanisms at eps 0.5 and 2 (direct pairs once)."""
    cases = []
    for table_name, table in TABLES.items():
        k = len(table)
        for name_a in YES_NO_NAMES if k == 2 else K_NAMES:
            for name_b in YES_NO_NAMES if k == 2 else K_NAMES:
                for epsilon in (0.5, 2.0):
                    if name_a == name_b == "direct" and epsilon != 0.5:
                        continue
                    a, b = mechanism_named(name_a, epsilon, k), mechanism_named(name_b, epsilon, k)
                    cases.append((table_name, a, b))
    return cases


def label(table_name, a, b) -> str:
    eps = lambda m: "" if m.name == "direct" else f"(eps={m.epsilon:.2g})"  # noqa: E731
    return f"{table_name}: {a.name}{eps(a)} x {b.name}{eps(b)}"


N, REPS = 1000, 400
GRID = grid()


@pytest.fixture(scope="module")
def grid_results():
    """For every grid case, REPS surveys of N respondents: estimates and interval hits per cell."""
    rng = np.random.default_rng(20251124)
    results = []
    for table_name, a, b in GRID:
        pi = np.asarray(TABLES[table_name])
        estimates = [ldp.estimate_joint(a, b, c) for c in simulate_joint(a, b, pi, N, REPS, rng)]
        est = np.array([e.estimate for e in estimates])
        low, high = np.array([e.ci_low for e in estimates]), np.array([e.ci_high for e in estimates])
        results.append((label(table_name, a, b), a, b, pi, est, (low <= pi) & (pi <= high)))
    return results


def true_variance(a, b, pi, n):
    """Var(pi_hat_ab) for every cell from the true table: cell_variance at (pi_ab, pi_a, pi_b)."""
    rows, columns = pi.sum(axis=1), pi.sum(axis=0)
    return np.array([[cell_variance(a, b, pi[i, j], rows[i], columns[j]) for j in range(pi.shape[1])]
                     for i in range(pi.shape[0])]) / n


def test_joint_estimates_are_unbiased_over_the_grid(grid_results):
    for name, a, b, pi, est, _ in grid_results:
        standard_error_of_mean = np.sqrt(true_variance(a, b, pi, N) / REPS)
        # 5 SE per cell (two-sided 5.7e-7; ~400 cells -> family-wise < 3e-4); cells with no
        # variance at all (direct x direct, pi = 0) must be exact.
        tolerance = np.maximum(5 * standard_error_of_mean, 1e-12)
        assert (np.abs(est.mean(axis=0) - pi) < tolerance).all(), (name, est.mean(axis=0), pi)


def test_interval_coverage_is_at_least_93_percent_over_the_grid(grid_results):
    """Nominal 95%, n = 1000. Three checks, each with a tolerance from the binomial SE:
    every cell: misses no more than a 7% miss rate allows at family-wise 1e-3 (Bonferroni);
    every case: the mean coverage of its cells >= 0.93 - 3 SE, SE = sqrt(0.93 * 0.07 / REPS)
    (cells of one survey are dependent; the SE of their mean is at most that of one cell);
    the whole grid: mean coverage >= 0.95 - 3 SE over the independent cases."""
    cells = sum(hits.shape[1] * hits.shape[2] for *_, hits in grid_results)
    most_misses = stats.binom.ppf(1 - 1e-3 / cells, REPS, 0.07)
    case_floor = 0.93 - 3 * math.sqrt(0.93 * 0.07 / REPS)
    means = []
    for name, _, _, _, _, hits in grid_results:
        coverage = hits.mean(axis=0)
        assert ((1 - coverage) * REPS <= most_misses).all(), (name, coverage)
        assert coverage.mean() >= case_floor, (name, coverage)
        means.append(coverage.mean())
    assert np.mean(means) >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / (REPS * len(means)))


VARIANCE_CASES = [
    ("qrr", "bitflip", 1.0, [[0.4, 0.1], [0.1, 0.4]]),
    ("krr", "oue", 1.0, [[0.3, 0.05, 0.0], [0.1, 0.2, 0.01], [0.0, 0.04, 0.3]]),
    ("sue", "direct", 2.0, [[0.2, 0.1, 0.1], [0.1, 0.2, 0.0], [0.05, 0.05, 0.2]]),
    ("direct", "direct", 1.0, [[0.5, 0.1], [0.3, 0.1]]),
]


@pytest.mark.parametrize("name_a, name_b, epsilon, table", VARIANCE_CASES,
                         ids=[f"{a}x{b}" for a, b, *_ in VARIANCE_CASES])
def test_empirical_variance_and_standard_error_match_the_formula(name_a, name_b, epsilon, table):
    pi = np.asarray(table)
    a, b = mechanism_named(name_a, epsilon, len(pi)), mechanism_named(name_b, epsilon, len(pi))
    n, reps = 500, 2000
    estimates = [ldp.estimate_joint(a, b, c) for c in simulate_joint(a, b, pi, n, reps, np.random.default_rng(77))]
    est = np.array([e.estimate for e in estimates])
    formula = true_variance(a, b, pi, n)
    # Relative SE of a sample variance over R reps ~ sqrt(2 / (R - 1)) = 0.032 (the estimates are
    # means of n = 500 products, so close to normal); 15% is > 4.5 SE.
    np.testing.assert_allclose(est.var(axis=0, ddof=1), formula, rtol=0.15)
    # The plug-in standard error estimates the true SD (plug-in bias O(1/n)); same 15%.
    se = np.array([e.std_error for e in estimates]).mean(axis=0)
    np.testing.assert_allclose(se, np.sqrt(formula), rtol=0.15)


CONDITIONAL_CASES = [("qrr", "direct", 2.0), ("bitflip", "bitflip", 2.0), ("krr", "sue", 2.0), ("direct", "oue", 1.0),
                     ("oue", "krr", 2.0)]


@pytest.mark.parametrize("name_a, name_b, epsilon", CONDITIONAL_CASES,
                         ids=[f"{a}x{b}" for a, b, _ in CONDITIONAL_CASES])
def test_conditional_fractions_are_consistent_and_their_intervals_cover(name_a, name_b, epsilon):
    pi = np.asarray([[0.4, 0.1], [0.1, 0.4]] if name_a in ("qrr", "bitflip") else
                    [[0.25, 0.1, 0.05], [0.05, 0.25, 0.0], [0.05, 0.05, 0.2]])
    a, b = mechanism_named(name_a, epsilon, len(pi)), mechanism_named(name_b, epsilon, len(pi))
    n, reps = 2000, 400
    counts = simulate_joint(a, b, pi, n, reps, np.random.default_rng(31))
    results = [ldp.estimate_conditional(a, b, c) for c in counts]
    truth = pi / pi.sum(axis=1, keepdims=True)
    est = np.array([r.estimate for r in results])
    # A ratio of unbiased estimates has a bias of order 1/n: by the delta method
    # E[N/D] - N0/D0 ~ (R Var(D) - Cov(N, D)) / D0^2, computed here from the simulated numerators
    # and denominators. Allowed: that bias plus 5 SE of the mean ratio.
    joint = np.array([ldp.estimate_joint(a, b, c).estimate for c in counts])
    own = np.array([a.estimate(c.a_counts, n).estimate for c in counts])[:, :, None]
    bias = np.empty_like(truth)
    for i, j in np.ndindex(truth.shape):
        cov = np.cov(joint[:, i, j], own[:, i, 0])
        bias[i, j] = (truth[i, j] * cov[1, 1] - cov[0, 1]) / pi.sum(axis=1)[i] ** 2
    tolerance = 5 * est.std(axis=0) / math.sqrt(reps) + np.abs(bias)
    assert (np.abs(est.mean(axis=0) - truth) <= tolerance).all(), (est.mean(axis=0), truth, tolerance)
    assert all(all(r.bounded) for r in results)  # every row fraction here is >= 0.3: far from 0
    low, high = np.array([r.ci_low for r in results]), np.array([r.ci_high for r in results])
    coverage = ((low <= truth + 1e-12) & (truth - 1e-12 <= high)).mean(axis=0)
    # Fieller, nominal 95%: mean over cells >= 0.93 - 3 SE (SE <= sqrt(0.93 * 0.07 / reps) = 0.013).
    assert coverage.mean() >= 0.93 - 3 * math.sqrt(0.93 * 0.07 / reps), coverage


ALPHA = 0.05
INDEPENDENT = {2: np.outer([0.3, 0.7], [0.6, 0.4]), 3: np.outer([0.2, 0.3, 0.5], [0.5, 0.3, 0.2])}
SIZE_CASES = [("qrr", "qrr"), ("qrr", "direct"), ("bitflip", "bitflip"), ("direct", "direct"), ("krr", "krr"),
              ("krr", "oue"), ("sue", "direct"), ("oue", "oue"), ("direct", "krr")]


@pytest.mark.parametrize("name_a, name_b", SIZE_CASES, ids=[f"{a}x{b}" for a, b in SIZE_CASES])
def test_the_independence_test_keeps_its_size_under_independence(name_a, name_b):
    k = 2 if name_a in ("qrr", "bitflip") or name_b in ("qrr", "bitflip") else 3
    a, b = mechanism_named(name_a, 1.0, k), mechanism_named(name_b, 1.0, k)
    reps = 1000
    counts = simulate_joint(a, b, INDEPENDENT[k], 1000, reps, np.random.default_rng(404 + 7 * k))
    p_values = np.array([ldp.independence(a, b, c).p_value for c in counts])
    # Rejection rate at alpha = 0.05 at most alpha + 3 SE, SE = sqrt(alpha (1 - alpha) / reps) = 0.0069.
    assert (p_values < ALPHA).mean() <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)


DEPENDENT = np.array([[0.3, 0.2], [0.2, 0.3]])  # Cramer's V = phi = 0.2
POWER_CASES = [("qrr", "qrr", 1.0), ("bitflip", "direct", 1.0), ("qrr", "qrr", 3.0), ("direct", "direct", 1.0)]


@pytest.mark.parametrize("name_a, name_b, epsilon", POWER_CASES, ids=[f"{a}x{b}-eps{e}" for a, b, e in POWER_CASES])
def test_the_power_under_a_stated_dependence_is_the_noncentral_chi_square_one(name_a, name_b, epsilon):
    """The report table's departure from independence is the true one times g_A g_B, so
    X^2 ~ noncentral chi-square(1, n phi_reports^2), phi_reports^2 = sum (g_A g_B D)^2 / (l_a l_b)."""
    a, b = mechanism_named(name_a, epsilon, 2), mechanism_named(name_b, epsilon, 2)
    n, reps = 500, 1000
    counts = simulate_joint(a, b, DEPENDENT, n, reps, np.random.default_rng(8080))
    power = np.mean([ldp.independence(a, b, c).p_value < ALPHA for c in counts])
    ga, gb = a.p - a.q_other, b.p - b.q_other
    deviation = DEPENDENT - np.outer(DEPENDENT.sum(1), DEPENDENT.sum(0))
    rates = np.outer(a.q_other + ga * DEPENDENT.sum(1), b.q_other + gb * DEPENDENT.sum(0))
    noncentrality = n * ((ga * gb * deviation) ** 2 / rates).sum()
    expected = stats.ncx2.sf(stats.chi2.ppf(1 - ALPHA, 1), 1, noncentrality)
    # Within 4 binomial SE of the asymptotic power (plus 0.02 for the asymptotics at n = 500).
    assert abs(power - expected) <= 4 * math.sqrt(expected * (1 - expected) / reps) + 0.02, (power, expected)
    assert power > ALPHA + 5 * math.sqrt(ALPHA * (1 - ALPHA) / reps)


PHI_CASES = [("qrr", "qrr"), ("krr", "oue"), ("direct", "krr"), ("sue", "sue"), ("direct", "direct")]


@pytest.mark.parametrize("name_a, name_b", PHI_CASES, ids=[f"{a}x{b}" for a, b in PHI_CASES])
def test_the_debiased_phi_squared_is_close_to_the_true_one(name_a, name_b):
    k = 2 if name_a == "qrr" else 3
    pi = DEPENDENT if k == 2 else 0.8 * INDEPENDENT[3] + 0.2 * np.diag([0.2, 0.3, 0.5])
    a, b = mechanism_named(name_a, 1.0, k), mechanism_named(name_b, 1.0, k)
    n, reps = 5000, 300
    results = [ldp.independence(a, b, c) for c in simulate_joint(a, b, pi, n, reps, np.random.default_rng(6))]
    phi2 = np.array([r.phi_squared for r in results])
    rows, columns = pi.sum(axis=1), pi.sum(axis=0)
    true_phi2 = ((pi - np.outer(rows, columns)) ** 2 / np.outer(rows, columns)).sum()
    # The noise term removes the O(1/n) upward bias of sum D_hat^2; what is left (from estimated
    # weights 1 / (pi_a pi_b)) is small against 5 SE of the mean over the reps.
    assert abs(phi2.mean() - true_phi2) < 5 * phi2.std() / math.sqrt(reps) + 1e-4, (phi2.mean(), true_phi2)
    v = np.array([r.cramers_v for r in results])
    assert ((0 <= v) & (v <= 1)).all()

"""ldp.mean_score: the mean score of an ordinal question from any one-of-k mechanism.

Seeded simulations with i.i.d. answers (so the report slots have exactly the covariance the variance
formula assumes), through randomize() -> counts() -> mean_score(); the expected covariance is built
here from first principles (enumerating each answer's channel), not from ldp.means.ordinal.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.means.ordinal import mean_score_variance
from tests.ldp.support import simulate_counts

SCORES = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
TABLES = {"lowest": [1, 0, 0, 0, 0], "highest": [0, 0, 0, 0, 1], "uniform": [0.2] * 5,
          "bimodal": [0.45, 0.05, 0.0, 0.05, 0.45]}
REPS = 2000
FLOOR = 0.93  # see tests/ldp/stats/test_statistics.py: 2000 surveys put a correct 95% interval 4.1 SE above this


def mechanisms(epsilon: float) -> list:
    return [ldp.KaryRR(epsilon, 5), ldp.OptimizedUnary(epsilon, 5), ldp.SymmetricUnary(epsilon, 5)]


def covariance_by_enumeration(m, pi) -> np.ndarray:
    """Cov of one report's slot vector: E[s s^T] - E[s] E[s]^T, summing over the true answer x and, given x,
    the slots' law (index: one report, P(j) = p if j == x else q; unary: independent bits)."""
    k, p, q = m.k, m.p, m.q_other
    second, first = np.zeros((k, k)), np.zeros(k)
    for x in range(k):
        rate = np.where(np.arange(k) == x, p, q)
        if m.unary:
            moment = np.outer(rate, rate)
            np.fill_diagonal(moment, rate)
        else:
            moment = np.diag(rate)
        second += pi[x] * moment
        first += pi[x] * rate
    return second - np.outer(first, first)


@pytest.mark.parametrize("m", mechanisms(1.0) + [ldp.Direct(5)], ids=lambda m: m.name)
@pytest.mark.parametrize("table", TABLES)
def test_the_variance_is_v_cov_v_of_the_debiased_fractions(m, table):
    pi = np.asarray(TABLES[table], dtype=float)
    sigma = covariance_by_enumeration(m, pi)
    expected = SCORES @ sigma @ SCORES / (100 * (m.p - m.q_other) ** 2)
    assert mean_score_variance(m, pi, 100, SCORES) == pytest.approx(expected, rel=1e-9, abs=1e-15)


# n = 10 (the smallest, where the interval's clipping to [1, 5] and the estimates' skew matter most) and 300;
# each case costs ~0.7 CPU-s (2000 calls of mean_score), so no n in between.
@pytest.fixture(scope="module", params=[(m, table, n) for eps in (0.5, 2.0, 5.0) for m in mechanisms(eps)
                                        for table in TABLES for n in (10, 300)],
                ids=lambda p: f"{p[0].name}-{p[0].epsilon:g}-{p[1]}-n{p[2]}")
def simulated(request):
    m, table, n = request.param
    pi = np.asarray(TABLES[table], dtype=float)
    rng = np.random.default_rng(int(10 * m.epsilon) * 1000 + n + len(table) + m.k * (1 + m.unary))
    counts = simulate_counts(m, pi, n, REPS, rng)
    return m, pi, n, [ldp.mean_score(m, c, n, SCORES) for c in counts]


@pytest.mark.slow
def test_the_mean_score_is_unbiased_with_the_formulas_variance(simulated):
    m, pi, n, estimates = simulated
    means = np.array([e.mean for e in estimates])
    variance = mean_score_variance(m, pi, n, SCORES)
    # 5 standard errors of the mean of 2000 estimates.
    assert abs(means.mean() - SCORES @ pi) < 5 * math.sqrt(variance / REPS)
    # Relative SE of a sample variance over 2000 reps is sqrt(2 / 1999) ~ 0.032 for near-normal estimates
    # (small n adds the estimates' excess kurtosis, at most ~1 here, so sqrt((2 + 1) / 2000) ~ 0.039):
    # 20% is > 5 of them.
    assert np.var(means, ddof=1) == pytest.approx(variance, rel=0.20)


@pytest.mark.slow
def test_the_interval_covers_at_least_93_percent_even_with_every_answer_at_an_end(simulated):
    m, pi, n, estimates = simulated
    truth = SCORES @ pi
    coverage = np.mean([e.ci_low <= truth <= e.ci_high for e in estimates])
    assert coverage >= FLOOR
    assert all(1.0 <= e.ci_low <= e.ci_high <= 5.0 for e in estimates)


def test_it_refuses_mechanisms_without_one_answer_of_k_and_wrong_scores():
    with pytest.raises(ValueError, match="one-of-k"):
        ldp.mean_score(ldp.MultiSelect(1.0, 3), [1, 2, 3], 5, [1, 2, 3])
    with pytest.raises(ValueError, match="scores"):
        ldp.mean_score(ldp.KaryRR(1.0, 3), [1, 2, 3], 6, [1, 2])
    with pytest.raises(ValueError, match="scores"):
        ldp.mean_score(ldp.KaryRR(1.0, 3), [1, 2, 3], 6, [1, 2, math.nan])


def test_no_reports_give_no_mean_and_the_whole_range():
    e = ldp.mean_score(ldp.KaryRR(1.0, 3), [0, 0, 0], 0, [0, 5, 10])
    assert math.isnan(e.mean) and (e.ci_low, e.ci_high, e.n) == (0.0, 10.0, 0)
    assert set(e.as_dict()) == {"mean", "std_error", "ci_low", "ci_high", "confidence", "n"}


def test_a_direct_question_gives_the_plain_sample_mean():
    e = ldp.mean_score(ldp.Direct(3), [5, 3, 2], 10, [1, 2, 3])
    assert e.mean == pytest.approx(1.7)
    assert e.std_error == pytest.approx(math.sqrt((0.5 * 1 + 0.3 * 4 + 0.2 * 9 - 1.7**2) / 9))  # the sample SD

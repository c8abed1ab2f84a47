"""The central epsilon of a shuffled release (`ldp.disclosure.shuffle`) against the figures of Feldman, McMillan &
Talwar's own code, against the definition summed afresh, and against the exact privacy of shuffled randomized
response."""

from __future__ import annotations

import functools
import math
from collections import defaultdict

import numpy as np
import pytest
from scipy import stats

from ldp.disclosure import shuffle, walk
from ldp.disclosure.shuffle import closed_form, delta_of, epsilon_c

# github.com/apple/ml-shuffling-amplification at commit 993d285a546114bf8c70c33d053dca322a755707
# (computeamplification.py, scipy 1.17.1), run here: (epsilon0, n, delta) -> the numerical analysis' upper and
# lower bounds with example.py's settings, numericalanalysis(n, eps0, delta, num_iterations=10, step=100, True /
# False), and the closed form of Theorem 3.1 (closedformanalysis).
THEIRS = {
    (4.0, 10**5, 1e-6): (0.172790550755978, 0.1675385583317841, 0.5378040242374512),
    (1.0, 10**4, 1e-6): (0.0535326319229294, 0.05284923662178562, 0.2332655961237434),
    (math.log(3), 1000, 1e-6): (0.2419000889631786, 0.20112264539509994, 0.7077305459951283),
    (0.5, 10**4, 1e-8): (0.02752196665594391, 0.027170622400761648, 0.119925505768879),
    (2.0, 10**6, 1e-8): (0.01818329992820254, 0.017621653598373886, 0.07189073021806718),
    (1.0, 10**5, 1e-5): (0.012941691903482216, 0.011993086214221741, 0.06938373041448058),
    (3.0, 5000, 1e-6): (0.5925481152490251, 0.4480241847004823, 1.0570893205836265),
    (6.0, 10**6, 1e-7): (0.17284600547238615, 0.1688263309265167, 0.514518341871289),
    (0.1, 1000, 1e-6): (0.010555948367069766, 0.009969506791121446, 0.06672401930789777),
}
# The same code with every c its own bucket and 30 bisection steps (step=1, num_iterations=30): its lower bound
# is then the exact sum less the mass it leaves out, within 2^-30 of its bisection's start.
THEIRS_FINE_LOWER = {
    (4.0, 10**5, 1e-6): 0.16976972299480453,
    (1.0, 10**4, 1e-6): 0.05300519174626192,
    (math.log(3), 1000, 1e-6): 0.20940567698944063,
    (0.5, 10**4, 1e-8): 0.027237787338281715,
}


@functools.cache
def ours(epsilon0: float, n: int, delta: float) -> float:
    return epsilon_c(epsilon0, n, delta)


@pytest.mark.parametrize("case", sorted(THEIRS))
def test_it_is_no_looser_than_their_numerical_analysis(case):
    upper, lower, _ = THEIRS[case]
    found = ours(*case)
    assert found <= upper <= 1.1 * upper
    assert found >= lower - closed_form(*case) * 2**-10  # their bisection's last step, from the closed form


@pytest.mark.parametrize("case", sorted(THEIRS_FINE_LOWER))
def test_it_is_within_a_ten_thousandth_of_their_finest_lower_bound(case):
    """Their finest lower bound is the exact sum less what it leaves out (2.4e-5 of the epsilon at n = 1000, where
    summing afresh with 60 bisection steps gives 0.20941077, ours 0.20941096)."""
    lower = THEIRS_FINE_LOWER[case]
    assert lower <= ours(*case) <= lower * (1 + 1e-4)


@pytest.mark.parametrize("case", sorted(THEIRS))
def test_the_closed_form_is_theirs_and_never_tighter(case):
    assert closed_form(*case) == pytest.approx(THEIRS[case][2], rel=1e-14)
    assert ours(*case) <= closed_form(*case)


@pytest.mark.parametrize("case", sorted(THEIRS)[:4])
def test_the_bisection_stops_at_the_smallest_epsilon_within_its_tolerance(case):
    epsilon0, n, delta = case
    found = ours(*case)
    assert delta_of(epsilon0, n, found, delta) <= delta < delta_of(epsilon0, n, found * (1 - 2 * shuffle.TOLERANCE),
                                                                   delta)


def definition(epsilon0: float, n: int, epsilon: float) -> tuple[float, float]:
    """Both hockey-stick divergences of P and Q summed over every (c, a, d) of their Theorem 3.2, no formula used."""
    p, alpha = math.exp(-epsilon0), math.exp(epsilon0) / (1 + math.exp(epsilon0))
    first, second = defaultdict(float), defaultdict(float)
    for c in range(n):
        weight = math.comb(n - 1, c) * p**c * (1 - p) ** (n - 1 - c)
        for a in range(c + 1):
            half = weight * math.comb(c, a) / 2**c
            for d, chance in ((1, alpha), (0, 1 - alpha)):
                first[(a + d, c - a + 1 - d)] += half * chance
                second[(a + 1 - d, c - a + d)] += half * chance
    grow = math.exp(epsilon)
    outcomes = set(first) | set(second)
    return (math.fsum(max(0.0, first[x] - grow * second[x]) for x in outcomes),
            math.fsum(max(0.0, second[x] - grow * first[x]) for x in outcomes))


@pytest.mark.parametrize("epsilon0, n, epsilon", [(1.0, 12, 0.3), (2.0, 30, 0.5), (0.5, 25, 0.05), (3.0, 8, 2.9)])
def test_the_divergence_is_the_definitions_in_both_directions(epsilon0, n, epsilon):
    alpha = 1 / (1 + math.exp(-epsilon0))
    u, v = alpha - math.exp(epsilon) * (1 - alpha), math.exp(epsilon) * alpha - (1 - alpha)
    found = walk.divergence_sum(n - 1, -epsilon0, 0, n - 1, u, v)
    one, other = definition(epsilon0, n, epsilon)
    assert found == pytest.approx(one, rel=1e-12) and found == pytest.approx(other, rel=1e-12)


def test_the_walk_over_c_matches_sums_afresh_at_every_c(monkeypatch):
    trials, log_p, alpha = 2 * 10**4 - 1, -1.0, 1 / (1 + math.exp(-1.0))
    u, v = alpha - math.exp(0.03) * (1 - alpha), math.exp(0.03) * alpha - (1 - alpha)
    low, high, _ = walk.binomial_window(trials, log_p, 1e-13)
    walked = walk.divergence_sum(trials, log_p, low, high, u, v)
    monkeypatch.setattr(walk, "RESTART", 1)
    assert walked == pytest.approx(walk.divergence_sum(trials, log_p, low, high, u, v), rel=1e-10)


def test_the_window_leaves_out_at_most_its_stated_tails():
    trials, log_p, tau = 5000, math.log(0.3), 1e-9
    low, high, tails = walk.binomial_window(trials, log_p, tau)
    outside = stats.binom.cdf(low - 1, trials, 0.3) + stats.binom.sf(high, trials, 0.3)
    assert outside <= tails <= 2 * tau
    assert stats.binom.cdf(low, trials, 0.3) > tau / 1e3  # and not much more than it need


def randomized_response_delta(epsilon0: float, n: int, epsilon: float) -> float:
    """The exact delta of n shuffled bit flips (the release is the count of 1s), worst over the others' answers."""
    alpha = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    worst = 0.0
    for ones in range(n):
        others = np.convolve(stats.binom.pmf(np.arange(ones + 1), ones, alpha),
                             stats.binom.pmf(np.arange(n - ones), n - 1 - ones, 1 - alpha))
        p, q = np.convolve(others, [alpha, 1 - alpha]), np.convolve(others, [1 - alpha, alpha])
        grow = math.exp(epsilon)
        worst = max(worst, np.maximum(0, p - grow * q).sum(), np.maximum(0, q - grow * p).sum())
    return float(worst)


@pytest.mark.parametrize("epsilon0, n, delta", [(2.0, 300, 1e-3), (1.0, 500, 1e-4), (0.5, 200, 1e-2)])
def test_shuffled_randomized_response_is_at_least_as_private_as_stated(epsilon0, n, delta):
    """A valid bound: the exact delta of shuffled bit flips at our epsilon is within delta (and at half our epsilon
    it is not: the bound is not loose by a factor of two on them)."""
    found = epsilon_c(epsilon0, n, delta)
    assert randomized_response_delta(epsilon0, n, found) <= delta < randomized_response_delta(epsilon0, n, found / 2)


def test_one_report_or_a_large_target_epsilon_changes_nothing():
    assert epsilon_c(1.5, 1, 1e-6) == 1.5
    assert delta_of(1.5, 100, 1.5, 1e-6) == 0.0
    assert epsilon_c(8.0, 10, 1e-6) <= 8.0
    assert epsilon_c(1.0, 3, 0.5) == 0.0  # three reports within 0.5 in total variation


def test_the_default_delta_is_the_smaller_of_a_millionth_and_n_to_the_minus_1_1():
    assert shuffle.default_delta(100) == 1e-6
    assert shuffle.default_delta(10**7) == pytest.approx(10**-7.7, rel=1e-12)


@pytest.mark.parametrize("arguments, name", [
    ((0.0, 100, 1e-6), "epsilon0"), ((100.0, 100, 1e-6), "epsilon0"), ((1.0, 0, 1e-6), "n"),
    ((1.0, 2.5, 1e-6), "n"), ((1.0, 100, 0.0), "delta"), ((1.0, 100, 1.0), "delta"), ((True, 100, 0.1), "epsilon0"),
])
def test_it_refuses_arguments_outside_their_range_naming_them(arguments, name):
    with pytest.raises(ValueError, match=name):
        epsilon_c(*arguments)

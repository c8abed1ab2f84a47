"""The breach with the direct answers as prior (ldp.disclosure.fitted): exactly the plain sum over every
combination of direct answers and every report of the best guess, for the fitted priors; the fit's shrinkage
(nothing to learn: the population's prior; a large combination: its own estimate); and on a seeded simulated
survey where a direct answer predicts the randomized one, a figure above the population prior's that an actual
attack achieves within its binomial interval."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

import ldp
from ldp import disclosure
from ldp.disclosure import fitted
from tests.ldp.disclosure import brute

MECHANISMS = {
    "krr": ldp.KaryRR(1.0, 3),
    "qrr": ldp.QRandomizedResponse("0.5"),
    "sue": ldp.SymmetricUnary(2.0, 3),
    "oue": ldp.OptimizedUnary(2.0, 3),
    "multiselect": ldp.MultiSelect(2.0, 2),
}


def cells_of(mechanism: ldp.Mechanism, groups: np.ndarray, truths: np.ndarray, seed: int) -> list:
    """Per combination: the mechanism's per-option counts of its reports (as stored), and its respondents."""
    rng = np.random.default_rng(seed)
    stored = mechanism.encode_many(mechanism.randomize(truths, rng))
    found = []
    for g in range(int(groups.max()) + 1):
        values, counts = np.unique(stored[groups == g], return_counts=True)
        found.append((list(mechanism.tally(values, counts)), int((groups == g).sum())))
    return found, stored


def test_the_accuracy_is_the_sum_over_every_combination_and_report_of_the_best_guess():
    for name, mechanism in MECHANISMS.items():
        size = disclosure.answers(mechanism)
        k = mechanism.k
        cells = [([40, 10, 5][:k], 50), ([5, 30, 20][:k], 50), ([3, 1, 1][:k], 4)]
        if name == "qrr":
            cells = [([40, 10], 50), ([12, 38], 50), ([3, 1], 4)]
        found = fitted.breach(mechanism, cells)
        priors = fitted.priors(mechanism, cells)
        total = sum(n for n, _ in priors)
        channel = brute.channel(mechanism)
        expected = sum((max(Fraction(n, total) * pi[x] * channel[r][x] for x in range(size))
                        for (n, pi), r in product(priors, channel)), Fraction(0))
        assert found.attacker_accuracy == float(expected), name
        assert found.baseline_accuracy == float(sum(Fraction(n, total) * max(pi) for n, pi in priors)), name


def test_the_whole_record_is_the_sum_over_every_combination_and_pair_of_reports():
    one, two = ldp.KaryRR(1.0, 3), ldp.QRandomizedResponse("0.5")
    groups = [(30, [[Fraction(6, 10), Fraction(3, 10), Fraction(1, 10)], [Fraction(1, 4), Fraction(3, 4)]]),
              (10, [[Fraction(1, 10), Fraction(1, 10), Fraction(8, 10)], [Fraction(9, 10), Fraction(1, 10)]])]
    first, second = brute.channel(one), brute.channel(two)
    expected = Fraction(0)
    for (n, (pi, rho)), r, s in product(groups, first, second):
        expected += max(Fraction(n, 40) * pi[x] * rho[y] * first[r][x] * second[s][y]
                        for x in range(3) for y in range(2))
    found = fitted.record([one, two], groups)
    assert found.attacker_accuracy == float(expected)
    assert found.baseline_accuracy == float(Fraction(3, 4) * Fraction(18, 40) + Fraction(1, 4) * Fraction(72, 100))
    assert found.odds_bound == pytest.approx(math.exp(one.effective_epsilon + two.effective_epsilon))


def test_when_the_combinations_differ_no_more_than_noise_each_gets_the_population_prior():
    mechanism = ldp.KaryRR(1.0, 3)
    cells = [([20, 20, 10], 50), ([40, 40, 20], 100), ([2, 2, 1], 5)]  # the same report rates everywhere
    assert fitted.strength(mechanism, cells) == math.inf
    pooled = [n for n, _ in fitted.priors(mechanism, cells)]
    assert pooled == [50, 100, 5]
    population = disclosure.breach(mechanism, fitted.priors(mechanism, [([62, 62, 31], 155)])[0][1])
    assert fitted.breach(mechanism, cells).attacker_accuracy == pytest.approx(population.attacker_accuracy, abs=1e-15)


def test_with_no_association_the_combinations_are_often_found_not_to_differ():
    """The between-combination variance is the spread less what noise alone gives it: with the same true shares in
    every combination it is as often below 0 (no difference: m infinite) as above, about half the time."""
    mechanism = ldp.QRandomizedResponse("0.5")
    rng = np.random.default_rng(7)
    rate = mechanism.q_other + 0.3 * (mechanism.p - mechanism.q_other)  # 30% yes everywhere
    found = []
    for _ in range(200):
        yes = rng.binomial(50, rate, size=10)
        found.append(fitted.strength(mechanism, [([50 - int(c), int(c)], 50) for c in yes]) == math.inf)
    assert 0.35 < np.mean(found) < 0.8  # chi-square with 9 degrees of freedom below its mean: 0.56


def test_a_small_combination_is_shrunk_to_the_population_a_large_one_keeps_its_own_estimate():
    mechanism = ldp.KaryRR(2.0, 2)
    p, q = mechanism.p, mechanism.q_other

    def fit(high, low):
        yes, no = round(20000 * (high * p + (1 - high) * q)), round(20000 * (low * p + (1 - low) * q))
        cells = [([20000 - yes, yes], 20000), ([20000 - no, no], 20000), ([3, 0], 3)]
        return fitted.strength(mechanism, cells), [float(pi[1]) for _, pi in fitted.priors(mechanism, cells)]

    m, (yes, no, small) = fit(0.9, 0.1)
    assert yes == pytest.approx(0.9, abs=0.01) and no == pytest.approx(0.1, abs=0.01)
    # Its own estimate (3 of 3 reports "no") is below 0: the combinations differ a lot, so it moves most of the way.
    population, own = (yes * 20000 + no * 20000) / 40003, (0 - q) / (p - q)
    assert small == pytest.approx(population + 3 / (3 + m) * (own - population), abs=1e-4)
    assert 0 < small < 0.2
    # Combinations that differ little: the three respondents stay near the population's share.
    m, (yes, no, small) = fit(0.55, 0.45)
    assert m > 30 and small == pytest.approx(0.5, abs=0.05)


@pytest.mark.parametrize("name", ["krr", "oue"])
def test_a_direct_answer_that_predicts_the_randomized_one_raises_the_figure_and_an_attack_achieves_it(name):
    mechanism = MECHANISMS[name]
    rng = np.random.default_rng(44)
    n = 30_000
    groups = rng.choice(3, size=n, p=[0.3, 0.4, 0.3])
    shares = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.15, 0.15, 0.7]])
    truths = np.array([rng.choice(3, p=shares[g]) for g in groups])
    cells, stored = cells_of(mechanism, groups, truths, seed=45)
    stated = fitted.breach(mechanism, cells)
    pooled_counts = [sum(c[0][j] for c in cells) for j in range(3)]
    population = mechanism.estimate(pooled_counts, n).simplex
    pooled = disclosure.breach(mechanism, disclosure.check_prior([Fraction(x) for x in population], 3))
    assert stated.attacker_accuracy > pooled.attacker_accuracy + 0.1
    # The attack: each respondent's combination's fitted prior times the likelihood of their report.
    priors = [np.array([float(x) for x in pi]) for _, pi in fitted.priors(mechanism, cells)]
    channel = brute.channel(mechanism)
    likelihood = {value: np.array([float(x) for x in channel[_report(mechanism, value)]]) for value in set(stored)}
    guesses = np.array([np.argmax(priors[g] * likelihood[value]) for g, value in zip(groups, stored, strict=True)])
    achieved = float(np.mean(guesses == truths))
    half = 3.29 * math.sqrt(stated.attacker_accuracy * (1 - stated.attacker_accuracy) / n)  # 99.9%
    assert abs(achieved - stated.attacker_accuracy) < half
    # Ignoring the direct answers does worse, as stated.
    assert achieved > pooled.attacker_accuracy + 0.1


def _report(mechanism: ldp.Mechanism, value: int) -> object:
    decoded = mechanism.decode(int(value))
    return tuple(decoded) if isinstance(decoded, list) else decoded


def test_it_refuses_no_combinations():
    with pytest.raises(ValueError):
        fitted.breach(ldp.KaryRR(1.0, 3), [])

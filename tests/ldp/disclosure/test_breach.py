"""The Bayes attacker's accuracy of `ldp.disclosure`, exactly against the plain sum over every report of each
mechanism's channel written afresh (`brute`), for every mechanism and uniform, point-mass, skewed and random
priors; and what the figures must satisfy whatever the prior."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

import ldp
from ldp.disclosure import (
    Breach,
    accuracy,
    answers,
    breach,
    breach_given,
    check_prior,
    odds_bound,
    record_breach,
    subsets_prior,
)
from ldp.disclosure.channels import rows
from tests.ldp.disclosure import brute

NAMES = sorted(brute.MECHANISMS)


def priors(size: int, seed: int) -> list[list[Fraction]]:
    """Uniform, a point mass on the first and on the last answer, one falling and one rising geometrically, one
    peaked in the middle, three random ones."""
    uniform = [Fraction(1, size)] * size
    first = [Fraction(int(x == 0)) for x in range(size)]
    last = [Fraction(int(x == size - 1)) for x in range(size)]
    skewed = [Fraction(2 ** (size - x), 2 ** (size + 1) - 2) for x in range(size)]
    rng = random.Random(seed)
    drawn = []
    for _ in range(3):
        weights = [rng.randint(0, 20) for _ in range(size)]
        weights[rng.randrange(size)] += 1
        drawn.append([Fraction(w, sum(weights)) for w in weights])
    peaked = [Fraction(1 + min(x, size - 1 - x), 1) for x in range(size)]
    peaked = [share / sum(peaked) for share in peaked]
    return [uniform, first, last, skewed, skewed[::-1], peaked, *drawn]


@pytest.mark.parametrize("name", NAMES)
def test_the_accuracy_is_the_sum_over_every_report_of_the_best_guess(name):
    mechanism = brute.MECHANISMS[name]
    for prior in priors(answers(mechanism), seed=len(name)):
        found, expected = accuracy(mechanism, prior), brute.accuracy(mechanism, prior)
        if name == "dlaplace":  # e^(-s/t) is irrational: floats, every one of the 175 reports summed
            assert found == pytest.approx(expected, rel=1e-13, abs=0), prior
        else:
            assert isinstance(found, Fraction) and found == expected, prior


@pytest.mark.parametrize("name", NAMES)
def test_the_merged_report_classes_give_the_same_sums(name):
    """`channels.rows` (what the whole record enumerates) against every report."""
    mechanism = brute.MECHANISMS[name]
    prior = priors(answers(mechanism), seed=7)[-1]
    merged = sum((max(p * x for p, x in zip(prior, row, strict=True)) for row in rows(mechanism)), Fraction(0))
    assert float(merged) == pytest.approx(float(brute.accuracy(mechanism, prior)), rel=1e-13)
    for x in range(answers(mechanism)):  # every answer's column is a distribution
        assert float(sum(row[x] for row in rows(mechanism))) == pytest.approx(1.0, rel=1e-13)


@pytest.mark.parametrize("name", NAMES)
def test_the_odds_bound_is_the_largest_likelihood_ratio(name):
    mechanism = brute.MECHANISMS[name]
    if not mechanism.randomized:
        assert odds_bound(mechanism) == math.inf
        return
    assert odds_bound(mechanism) == pytest.approx(brute.largest_ratio(mechanism), rel=1e-12)
    assert odds_bound(mechanism) == pytest.approx(math.exp(mechanism.effective_epsilon), rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_the_attacker_does_no_worse_than_the_baseline_nor_better_than_the_odds_allow(name):
    """max pi <= accuracy <= min(1, e^eps max pi): the report can only help, and by at most the odds."""
    mechanism = brute.MECHANISMS[name]
    for prior in priors(answers(mechanism), seed=3):
        found = breach(mechanism, prior)
        assert found.baseline_accuracy == float(max(prior))
        assert found.baseline_accuracy <= found.attacker_accuracy <= 1.0
        assert found.attacker_accuracy <= found.odds_bound * found.baseline_accuracy * (1 + 1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_a_point_mass_prior_leaves_nothing_to_learn(name):
    mechanism = brute.MECHANISMS[name]
    size = answers(mechanism)
    for x in (0, size - 1):
        prior = [Fraction(int(y == x)) for y in range(size)]
        assert breach(mechanism, prior) == Breach(1.0, 1.0, odds_bound(mechanism))


def test_uniform_yes_no_gives_the_best_guess_respondents_are_told():
    """Two equally likely answers: the accuracy is e^eps / (1 + e^eps) (`ldp.best_guess`), here 3/4 for q = 1/2."""
    assert accuracy(ldp.QRandomizedResponse("0.5"), ["0.5", "0.5"]) == Fraction(3, 4)
    mechanism = ldp.BitFlip(1.0)
    assert breach(mechanism, [0.5, 0.5]).attacker_accuracy == pytest.approx(
        ldp.best_guess(mechanism.effective_epsilon), rel=1e-12)


def test_unary_encodings_of_many_options_are_summed_in_closed_form():
    """k = 40 options (2^40 patterns): the closed form against the enumeration at k = 12 with the same integers."""
    small, large = ldp.OptimizedUnary(1.0, 12), ldp.OptimizedUnary(1.0, 40)
    prior = [Fraction(x + 1, 78) for x in range(12)]
    assert accuracy(small, prior) == brute.accuracy(small, prior)
    prior = [Fraction(x + 1, 820) for x in range(40)]
    assert Fraction(1, 40) < accuracy(large, prior) < Fraction(40, 820) * math.e


def test_a_skewed_prior_can_leave_the_report_useless():
    """k-RR at eps = 1 with shares 0.9 / 0.05 / 0.05: every report's best guess is the 0.9 answer."""
    assert breach(ldp.KaryRR(1.0, 3), ["0.9", "0.05", "0.05"]).attacker_accuracy == pytest.approx(0.9, rel=1e-15)


def test_the_whole_record_multiplies_when_the_answers_are_independent():
    a, b = ldp.KaryRR(1.0, 3), ldp.SymmetricUnary(2.0, 3)
    pa, pb = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)], [Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)]
    joint = {(x, y): pa[x] * pb[y] for x in range(3) for y in range(3)}
    found = record_breach([a, b], joint)
    assert found.attacker_accuracy == pytest.approx(float(accuracy(a, pa) * accuracy(b, pb)), rel=1e-15)
    assert found.baseline_accuracy == float(max(joint.values()))
    assert found.odds_bound == pytest.approx(odds_bound(a) * odds_bound(b), rel=1e-15)


def test_the_whole_record_is_the_sum_over_every_combination_of_reports():
    """Three questions with a correlated prior: every triple of reports enumerated afresh."""
    mechanisms = [ldp.QRandomizedResponse("0.5"), ldp.OneBitMean(1.0, "0", "2", "1"), ldp.MultiSelect(1.0, 2)]
    rng = random.Random(4)
    joint = {(x, y, z): Fraction(rng.randint(0, 9)) for x in range(2) for y in range(3) for z in range(4)}
    total = sum(joint.values())
    joint = {cell: share / total for cell, share in joint.items()}
    channels = [brute.reports(m) for m in mechanisms]
    expected = Fraction(0)
    for ra in channels[0]:
        for rb in channels[1]:
            for rc in channels[2]:
                expected += max(share * ra[x] * rb[y] * rc[z] for (x, y, z), share in joint.items())
    assert record_breach(mechanisms, joint).attacker_accuracy == float(expected)


def test_knowing_the_direct_answers_helps_the_attacker_and_never_hurts():
    """Groups with different priors: the weighted accuracy beats the accuracy with the pooled prior; groups
    alike give the pooled figures."""
    mechanism = ldp.KaryRR(1.5, 3)
    groups = [(Fraction(1, 4), [Fraction(8, 10), Fraction(1, 10), Fraction(1, 10)]),
              (Fraction(3, 4), [Fraction(1, 10), Fraction(3, 10), Fraction(6, 10)])]
    pooled = [sum(share * prior[x] for share, prior in groups) for x in range(3)]
    given, alone = breach_given(mechanism, groups), breach(mechanism, pooled)
    expected = sum(share * accuracy(mechanism, prior) for share, prior in groups)
    assert given.attacker_accuracy == float(expected) > alone.attacker_accuracy
    assert given.baseline_accuracy == float(Fraction(1, 4) * Fraction(8, 10) + Fraction(3, 4) * Fraction(6, 10))
    assert breach_given(mechanism, [(0.5, pooled), (0.5, pooled)]) == alone


def test_a_multiselect_prior_from_independent_options_gives_the_product_of_per_option_figures():
    """Any subset allowed and options independent: each bit is a yes/no question of its own, so the
    accuracy of guessing the whole subset is the product of the bits' accuracies."""
    mechanism = ldp.MultiSelect(2.0, 3)
    inclusion = [Fraction(1, 2), Fraction(1, 5), Fraction(7, 10)]
    keep = Fraction(mechanism.keep, mechanism.modulus)
    per_bit = math.prod(max(keep * (1 - f), (1 - keep) * f) + max((1 - keep) * (1 - f), keep * f) for f in inclusion)
    assert accuracy(mechanism, subsets_prior(inclusion)) == per_bit


def test_a_multiselect_prior_respects_at_most():
    mechanism = ldp.MultiSelect(2.0, 3, at_most=1)
    prior = subsets_prior([Fraction(1, 2), Fraction(1, 5), Fraction(7, 10)], at_most=1)
    assert all(share == 0 for subset, share in enumerate(prior) if subset.bit_count() > 1)
    assert accuracy(mechanism, prior) == brute.accuracy(mechanism, prior)
    with pytest.raises(ValueError, match="at_most = 1"):
        accuracy(mechanism, subsets_prior([Fraction(1, 2)] * 3))


@pytest.mark.parametrize("prior, message", [
    ([0.5, 0.5, 0.0], "must have 2 entries"),
    ([1.5, -0.5], r"in \[0, 1\]"),
    ([0.5, 0.49], "must sum to 1"),
    (["x", 1], "must be numbers"),
])
def test_it_refuses_a_prior_that_is_not_one_share_per_answer(prior, message):
    with pytest.raises(ValueError, match=message):
        breach(ldp.BitFlip(1.0), prior)


def test_a_prior_within_a_billionth_of_one_is_scaled_to_one():
    assert sum(check_prior([0.3, 0.7 + 5e-10], 2)) == 1
    with pytest.raises(ValueError, match="sum to 1"):
        check_prior([0.3, 0.7 + 2e-9], 2)


def test_the_json_of_a_question_sent_as_given_has_no_infinite_odds():
    assert breach(ldp.Direct(2), [0.3, 0.7]).as_dict() == {
        "attacker_accuracy": 1.0, "baseline_accuracy": 0.7, "odds_bound": None}

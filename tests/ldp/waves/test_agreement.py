"""ldp.waves.agreement against exact enumeration: every permanent response B' (an option, or every pattern of k bits)
and every report, with the samplers' integers as fractions; the composed sampler against
ldp.mechanisms.remembered.Composed."""

import itertools
from fractions import Fraction

import pytest

import ldp
from ldp.mechanisms.remembered import Composed, Remembered
from ldp.waves.agreement import composed_sampler, independent_agreement, remembered_agreement

LAYERS = [  # (permanent, first wave's instantaneous layer, second wave's)
    (ldp.KaryRR(0.5, 3), ldp.KaryRR(4.0, 3), ldp.KaryRR(4.0, 3)),
    (ldp.KaryRR(3.0, 4), ldp.KaryRR(1.0, 4), ldp.KaryRR(2.0, 4)),
    (ldp.QRandomizedResponse("0.8"), ldp.QRandomizedResponse("0.5"), ldp.BitFlip(1.0)),
    (ldp.SymmetricUnary(2.0, 3), ldp.SymmetricUnary(1.0, 3), ldp.SymmetricUnary(1.0, 3)),
    (ldp.OptimizedUnary(1.5, 3), ldp.SymmetricUnary(0.5, 3), ldp.OptimizedUnary(3.0, 3)),
]


def bits_given(sampler, ones):
    """P(a report of k bits | the bits each sampler bit is 1 with: a1 where `ones` is 1, a0 elsewhere)."""
    a1, a0, m = sampler["one_if_true"], sampler["one_if_false"], sampler["modulus"]
    chance = [Fraction(a1 if bit else a0, m) for bit in ones]

    def probability(report):
        found = Fraction(1)
        for c, r in zip(chance, report, strict=True):
            found *= c if r else 1 - c
        return found
    return probability


def distribution(sampler, given):
    """{output: probability} of one sampler applied to `given` (an option, or a pattern of bits for unary)."""
    k = sampler["k"]
    if sampler["kind"] == "grr":
        keep, other, m = sampler["keep"], sampler["other"], sampler["modulus"]
        return {r: Fraction(keep if r == given else other, m) for r in range(k)}
    probability = bits_given(sampler, given)
    return {pattern: probability(pattern) for pattern in itertools.product((0, 1), repeat=k)}


def truth(sampler, x):
    """The true answer as the permanent layer takes it: an option, or the one-hot pattern for unary."""
    return x if sampler["kind"] == "grr" else tuple(int(j == x) for j in range(sampler["k"]))


def reports(permanent, instant, x):
    """{report: probability} of one wave for a browser new to the series: B' drawn, then randomized."""
    found = {}
    for b, pb in distribution(permanent, truth(permanent, x)).items():
        for r, pr in distribution(instant, b).items():
            found[r] = found.get(r, 0) + pb * pr
    return found


@pytest.mark.parametrize(("permanent", "first", "second"), LAYERS)
def test_agreement_under_one_permanent_response_is_the_enumerated_one_for_every_answer(permanent, first, second):
    p, s1, s2 = permanent.sampler(), first.sampler(), second.sampler()
    for x in range(p["k"]):
        enumerated = sum(pb * sum(pr * distribution(s2, b)[r] for r, pr in distribution(s1, b).items())
                         for b, pb in distribution(p, truth(p, x)).items())
        assert remembered_agreement(p, s1, s2) == enumerated


@pytest.mark.parametrize(("permanent", "first", "second"), LAYERS)
def test_agreement_of_independent_draws_is_the_enumerated_one_for_the_same_and_a_changed_answer(permanent, first,
                                                                                                   second):
    p, s1, s2 = permanent.sampler(), first.sampler(), second.sampler()
    c1, c2 = composed_sampler(p, s1), composed_sampler(p, s2)
    for x1, x2 in itertools.product(range(p["k"]), repeat=2):
        one, two = reports(p, s1, x1), reports(p, s2, x2)
        assert independent_agreement(c1, c2, x1, x2) == sum(one[r] * two[r] for r in one)


@pytest.mark.parametrize(("permanent", "first", "second"), LAYERS)
def test_the_composed_sampler_is_the_enumerated_channel_and_ldp_waves_composed(permanent, first, second):
    p, s1 = permanent.sampler(), first.sampler()
    composed = composed_sampler(p, s1)
    a, b, m = Composed(Remembered(permanent, first)).channel()
    assert composed == ({"kind": "grr", "k": p["k"], "modulus": m, "keep": a, "other": b} if p["kind"] == "grr" else
                        {"kind": "unary", "k": p["k"], "modulus": m, "one_if_true": a, "one_if_false": b})
    for x in range(p["k"]):
        assert reports(p, s1, x) == distribution(composed, truth(p, x))


def test_it_refuses_layers_of_different_families_or_sizes():
    with pytest.raises(ValueError, match="both layers"):
        composed_sampler(ldp.KaryRR(1.0, 3).sampler(), ldp.SymmetricUnary(1.0, 3).sampler())
    with pytest.raises(ValueError, match="both layers"):
        remembered_agreement(ldp.KaryRR(1.0, 3).sampler(), ldp.KaryRR(1.0, 3).sampler(), ldp.KaryRR(1.0, 4).sampler())
    with pytest.raises(ValueError, match="two grr or two unary"):
        independent_agreement(ldp.KaryRR(1.0, 3).sampler(), {"kind": "onebit"}, 0, 0)

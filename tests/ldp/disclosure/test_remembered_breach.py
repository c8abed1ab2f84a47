"""The breach of a question that remembers its randomization across waves (ldp.disclosure.remembered), exactly
against the plain sum over every permanent response and every tuple of the waves' reports, written afresh from the
samplers' integers; and the permanent layer as the bound of any number of waves."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

import ldp
from ldp import disclosure
from ldp.disclosure import remembered
from ldp.mechanisms.remembered import Composed, Remembered

LAYERS = {
    "qrr": (ldp.QRandomizedResponse("0.8"), ldp.QRandomizedResponse("0.5")),
    "bitflip": (ldp.BitFlip(2.5), ldp.BitFlip(1.0)),
    "krr": (ldp.KaryRR(3.0, 3), ldp.KaryRR(1.0, 3)),
    "sue": (ldp.SymmetricUnary(3.0, 3), ldp.SymmetricUnary(1.5, 3)),
    "oue": (ldp.OptimizedUnary(3.0, 3), ldp.OptimizedUnary(1.5, 3)),
}
PRIORS = {2: [Fraction(7, 10), Fraction(3, 10)], 3: [Fraction(1, 2), Fraction(3, 10), Fraction(1, 5)]}


def responses(mechanism: ldp.Mechanism) -> dict[tuple[int, ...], list[Fraction]]:
    """P(response | truth) for every response, from the sampler's integers: an index is one option, a unary
    response a tuple of bits (bit j one w.p. a / M where the truth is, b / M elsewhere)."""
    a, b, modulus = type(mechanism).sampler_channel(mechanism.sampler())
    p, q = Fraction(a, modulus), Fraction(b, modulus)
    k = mechanism.k
    if mechanism.unary:
        return {bits: [math.prod((p if j == x else q) if bit else 1 - (p if j == x else q)
                                 for j, bit in enumerate(bits)) for x in range(k)]
                for bits in itertools.product((0, 1), repeat=k)}
    return {(r,): [p if r == x else q for x in range(k)] for r in range(k)}


def brute(permanent: ldp.Mechanism, instant: ldp.Mechanism, prior: list[Fraction], waves: int) -> Fraction:
    """sum over every tuple of the waves' reports of max_x pi(x) sum_b P(b | x) prod_i P(r_i | b)."""
    first, again = responses(permanent), responses(instant)
    k = permanent.k
    found = Fraction(0)
    for reports in itertools.product(again, repeat=waves):
        found += max(prior[x] * sum((first[b][x] * math.prod(again[r][b[0]] for r in reports)
                                     for b in first), Fraction(0)) for x in range(k))
    return found


def brute_bits(permanent: ldp.Mechanism, instant: ldp.Mechanism, prior: list[Fraction], waves: int) -> Fraction:
    """The same for unary layers: every permanent bit tuple b and every tuple of reported bit tuples, each bit of a
    report kept from b's bit with the instantaneous layer's own per-bit channel."""
    first = responses(permanent)
    a, b_, modulus = type(instant).sampler_channel(instant.sampler())
    p2, q2 = Fraction(a, modulus), Fraction(b_, modulus)
    k = permanent.k

    def sent(report: tuple[int, ...], b: tuple[int, ...]) -> Fraction:
        one = [p2 if bit else q2 for bit in b]
        return math.prod(one[j] if r else 1 - one[j] for j, r in enumerate(report))

    patterns = list(itertools.product((0, 1), repeat=k))
    found = Fraction(0)
    for reports in itertools.product(patterns, repeat=waves):
        found += max(prior[x] * sum((first[b][x] * math.prod(sent(r, b) for r in reports) for b in first),
                                    Fraction(0)) for x in range(k))
    return found


@pytest.mark.parametrize("name", sorted(LAYERS))
@pytest.mark.parametrize("waves", [1, 2, 3])
def test_the_accuracy_of_linked_waves_is_the_sum_over_every_tuple_of_reports(name, waves):
    permanent, instant = LAYERS[name]
    if permanent.unary and waves == 3:
        pytest.skip("2^9 tuples of 3-bit reports three times over: covered by waves 1 and 2")
    prior = PRIORS[permanent.k]
    expected = (brute_bits if permanent.unary else brute)(permanent, instant, prior, waves)
    assert remembered.accuracy(Remembered(permanent, instant), prior, waves) == expected


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_one_wave_is_the_composed_mechanisms_breach(name):
    layers = Remembered(*LAYERS[name])
    prior = PRIORS[layers.k]
    assert disclosure.accuracy(Composed(layers), prior) == remembered.accuracy(layers, prior, 1)
    assert disclosure.breach(Composed(layers), prior).odds_bound == pytest.approx(math.exp(layers.wave_epsilon))


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_more_waves_reveal_more_and_never_more_than_the_permanent_layer(name):
    layers = Remembered(*LAYERS[name])
    prior = PRIORS[layers.k]
    bound = remembered.accuracy(layers, prior, None)
    assert bound == disclosure.accuracy(layers.permanent, prior)
    most = 6 if not layers.unary else 4
    found = [remembered.accuracy(layers, prior, w) for w in range(1, most + 1)]
    assert all(a <= b for a, b in zip(found, found[1:], strict=False))
    assert max(prior) <= found[0] and found[-1] <= bound
    # Many waves average the instantaneous noise away: the figure nears the permanent layer's.
    assert bound - remembered.accuracy(layers, prior, 40 if not layers.unary else 12) < (bound - found[0]) / 3


def test_the_statement_figures_for_one_wave_and_for_every_wave():
    layers = Remembered(*LAYERS["krr"])
    one, every = remembered.breach(layers, PRIORS[3], 1), remembered.breach(layers, PRIORS[3], None)
    assert one.attacker_accuracy < every.attacker_accuracy
    assert every.odds_bound == pytest.approx(math.exp(layers.permanent.effective_epsilon))
    assert one.odds_bound == pytest.approx(math.exp(layers.wave_epsilon))


def test_it_refuses_no_waves_and_too_many_classes():
    layers = Remembered(*LAYERS["sue"])
    with pytest.raises(ValueError, match="at least one wave"):
        remembered.rows(layers, 0)
    with pytest.raises(ValueError, match="too many"):
        remembered.rows(Remembered(ldp.SymmetricUnary(3.0, 16), ldp.SymmetricUnary(1.5, 16)), 4)

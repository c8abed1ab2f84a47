"""ldp.offline.audit on joint bit patterns: a unary or multi-select randomizer whose bits are each right but
correlated passes the bitwise (marginal) test and fails the joint one, all 2^k patterns for small k,
the patterns of every pair of bits for larger k; the cells' probabilities are the exact products."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import ldp
from ldp.offline.audit import audit, audit_truths, report_probabilities, tabulate
from ldp.offline.cells import JOINT_BITS_MAX_K, bit_pairs, layout

DRAWS = 20_000
MECHANISMS = [ldp.OptimizedUnary(1.0, 4), ldp.SymmetricUnary(2.0, 9), ldp.MultiSelect(2.0, 5),
              ldp.MultiSelect(3.0, 10)]
IDS = [f"{m.name}-{m.k}" for m in MECHANISMS]


def one_integers(sampler, truth):
    """Per bit, the integer a with P(bit = 1) = a / modulus, as the published channel has it."""
    k, m = sampler["k"], sampler["modulus"]
    if sampler["kind"] == "unary":
        return [sampler["one_if_true"] if j == truth else sampler["one_if_false"] for j in range(k)]
    return [sampler["keep"] if (truth >> j) & 1 else m - sampler["keep"] for j in range(k)]


def histogram(bits):
    values, counts = np.unique(bits @ (1 << np.arange(bits.shape[1])), return_counts=True)
    return dict(zip(values.tolist(), counts.tolist(), strict=True))


def draw(sampler, truth, rng, together):
    """Reports for one truth: each bit 1 when a word falls below its integer; one word per bit (the published
    channel), or with `together` one word for all bits of a report (each bit's rate right, the bits correlated)."""
    one = np.array(one_integers(sampler, truth))
    words = rng.integers(0, sampler["modulus"], size=(DRAWS, 1 if together else sampler["k"]))
    return histogram((words < one).astype(np.int64))


def rows(sampler, rng, together, bits):
    return {x: tabulate(sampler, draw(sampler, x, rng, together), bits=bits) for x in audit_truths(sampler)}


@pytest.mark.slow
@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_correlated_bits_pass_the_bitwise_test_and_fail_the_joint_one(m):
    sampler = m.sampler()
    assert layout(sampler) == ("patterns" if m.k <= JOINT_BITS_MAX_K else "pairs")
    bitwise = audit(sampler, rows(sampler, np.random.default_rng(31), together=True, bits=True), DRAWS, bits=True)
    assert bitwise.passed, bitwise.failures
    joint = audit(sampler, rows(sampler, np.random.default_rng(32), together=True, bits=False), DRAWS)
    assert not joint.passed and joint.failures


@pytest.mark.slow
@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_independent_bits_pass_the_joint_test_with_a_bound_below_the_claim(m):
    sampler = m.sampler()
    result = audit(sampler, rows(sampler, np.random.default_rng(33), together=False, bits=False), DRAWS)
    assert result.passed, result.failures
    assert 0 < result.epsilon_lower_bound <= result.claimed_epsilon


def test_a_unary_report_with_exactly_one_bit_set_passes_bitwise_and_fails_jointly():
    """OUE at epsilon ln 3 with 3 options has p = 1/2 and q = 1/4 = (1 - p) / 2: a randomizer that marks the true
    option with probability p, else one other option at random, gets every bit's rate right, but never sends
    a report with no mark or with two."""
    m = ldp.OptimizedUnary(math.log(3), 3)
    sampler, rng = m.sampler(), np.random.default_rng(34)
    assert [Fraction(sampler[name], sampler["modulus"]) for name in ("one_if_true", "one_if_false")] \
        == [Fraction(1, 2), Fraction(1, 4)]
    reports = {}
    for x in range(3):
        kept = rng.integers(0, sampler["modulus"], size=DRAWS) < sampler["one_if_true"]
        marked = np.where(kept, x, (x + rng.integers(1, 3, size=DRAWS)) % 3)
        reports[x] = histogram(np.eye(3, dtype=np.int64)[marked])
    bitwise = audit(sampler, {x: tabulate(sampler, h, bits=True) for x, h in reports.items()}, DRAWS, bits=True)
    assert bitwise.passed, bitwise.failures
    joint = audit(sampler, {x: tabulate(sampler, h) for x, h in reports.items()}, DRAWS)
    assert not joint.passed
    assert any(failure.startswith("truth 0, bits 1,1,0: observed 0.00000") for failure in joint.failures)


def exact_bit(sampler, truth, j, value):
    one = Fraction(one_integers(sampler, truth)[j], sampler["modulus"])
    return one if value else 1 - one


@pytest.mark.parametrize("m", [ldp.OptimizedUnary(1.0, 3), ldp.MultiSelect(2.0, 4, at_most=2)], ids=["oue", "ms"])
def test_pattern_probabilities_are_the_exact_products_of_the_bits(m):
    sampler = m.sampler()
    for x in audit_truths(sampler):
        row = report_probabilities(sampler, x)
        for pattern in range(1 << m.k):
            exact = np.prod([exact_bit(sampler, x, j, (pattern >> j) & 1) for j in range(m.k)])
            assert row[pattern] == pytest.approx(float(exact), rel=1e-12)


def test_pair_cells_are_the_exact_products_of_two_bits():
    m = ldp.OptimizedUnary(1.0, 8)
    sampler = m.sampler()
    row = report_probabilities(sampler, 2)
    assert len(row) == 4 * 28
    for n, (i, j) in enumerate(bit_pairs(8)):
        for a, b in itertools.product((0, 1), repeat=2):
            exact = exact_bit(sampler, 2, i, a) * exact_bit(sampler, 2, j, b)
            assert row[4 * n + a + 2 * b] == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("bits", [True, False], ids=["bitwise", "joint"])
def test_a_unary_randomizer_leaking_more_than_it_claims_shows_a_bound_above_the_claim(bits):
    """The bitwise bound (independent bits assumed) and the joint one (no assumption) both see the leak."""
    claimed, leaky = ldp.OptimizedUnary(1.0, 5).sampler(), ldp.OptimizedUnary(1.4, 5).sampler()
    rng = np.random.default_rng(35)
    table = {x: tabulate(claimed, draw(leaky, x, rng, together=False), bits=bits) for x in range(5)}
    result = audit(claimed, table, DRAWS, bits=bits)
    assert not result.passed and result.epsilon_lower_bound > result.claimed_epsilon

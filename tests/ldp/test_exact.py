"""ldp.exact and the sampler integers: exact, at most 2**32, never more epsilon than configured.

Every check recomputes the epsilon of a sampler from its integers with exact rational
and 60-digit decimal arithmetic, independently of the floats ldp uses.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ldp
from ldp import exact
from tests.ldp.support import exact_exp, exact_log, fraction_le_exp, sampler_odds_ratio

WORD = 2**32
# The integers are rounded to denominators near 2**32 (at least ~1e5 for a and b even at
# eps = 10, k = 64), so the effective epsilon loses at most ~1e-5 absolute at eps = 10 and
# ~1.5e-8 absolute at eps = 0.05; both are below 1e-6 relative.
RELATIVE_LOSS = 1e-6

SETTINGS = settings(max_examples=300, deadline=None, database=None, derandomize=True)

epsilons = st.floats(min_value=ldp.EPSILON_MIN, max_value=ldp.EPSILON_MAX, allow_nan=False)
ks = st.integers(min_value=2, max_value=ldp.K_MAX)


def check_effective_epsilon(m, configured_ratio_ok, configured_epsilon: Decimal):
    """The sampler's epsilon is <= the configured one and within RELATIVE_LOSS of it."""
    sampler = m.sampler()
    ratio = sampler_odds_ratio(sampler)
    assert configured_ratio_ok(ratio), f"{m}: sampler odds {ratio} exceed e^epsilon"
    effective = exact_log(ratio)
    assert effective <= configured_epsilon
    assert (configured_epsilon - effective) / configured_epsilon <= Decimal(RELATIVE_LOSS)
    # The float the app displays agrees with the exact value.
    assert m.effective_epsilon == pytest.approx(float(effective), rel=1e-12)


def check_integers(m):
    sampler = m.sampler()
    assert sampler["k"] == m.k
    values = [v for key, v in sampler.items() if key != "kind"]
    assert all(type(v) is int and 0 < v <= WORD for v in values), sampler
    big_m = sampler["modulus"]
    if sampler["kind"] == "grr":
        assert set(sampler) == {"kind", "k", "modulus", "keep", "other"}
        assert big_m == sampler["keep"] + (m.k - 1) * sampler["other"]
        assert sampler["keep"] > sampler["other"]
        assert m.p == float(Fraction(sampler["keep"], big_m))
        assert m.q_other == float(Fraction(sampler["other"], big_m))
    else:
        assert sampler["kind"] == "unary"
        assert set(sampler) == {"kind", "k", "modulus", "one_if_true", "one_if_false"}
        assert 0 < sampler["one_if_false"] < sampler["one_if_true"] < big_m
        assert m.p == float(Fraction(sampler["one_if_true"], big_m))
        assert m.q_other == float(Fraction(sampler["one_if_false"], big_m))


@SETTINGS
@given(epsilon=epsilons)
def test_bitflip_integers_are_exact_and_never_exceed_epsilon(epsilon):
    m = ldp.BitFlip(epsilon)
    check_integers(m)
    assert m.modulus == WORD
    check_effective_epsilon(m, lambda r: fraction_le_exp(r, epsilon), Decimal(epsilon))
    # Rounded no further than needed: one more "keep" word would exceed epsilon.
    assert not fraction_le_exp(Fraction(m.keep + 1, m.modulus - m.keep - 1), epsilon)


@SETTINGS
@given(epsilon=epsilons, k=ks)
def test_krr_integers_are_exact_and_never_exceed_epsilon(epsilon, k):
    m = ldp.KaryRR(epsilon, k)
    check_integers(m)
    check_effective_epsilon(m, lambda r: fraction_le_exp(r, epsilon), Decimal(epsilon))
    # keep is as large as the bound and the 32-bit modulus allow, for the chosen `other`.
    assert (not fraction_le_exp(Fraction(m.keep + 1, m.other), epsilon)) or m.modulus + 1 > WORD


@SETTINGS
@given(epsilon=epsilons, k=ks)
def test_sue_integers_are_exact_and_never_exceed_epsilon(epsilon, k):
    m = ldp.SymmetricUnary(epsilon, k)
    check_integers(m)
    assert m.one_if_true + m.one_if_false == m.modulus  # symmetric: q = 1 - p
    check_effective_epsilon(m, lambda r: fraction_le_exp(r, epsilon), Decimal(epsilon))


@SETTINGS
@given(epsilon=epsilons, k=ks)
def test_oue_integers_are_exact_and_never_exceed_epsilon(epsilon, k):
    m = ldp.OptimizedUnary(epsilon, k)
    check_integers(m)
    assert Fraction(m.one_if_true, m.modulus) == Fraction(1, 2)
    check_effective_epsilon(m, lambda r: fraction_le_exp(r, epsilon), Decimal(epsilon))
    # one_if_false is rounded up no further than needed.
    a0 = m.one_if_false
    assert not fraction_le_exp(Fraction(m.modulus - a0 + 1, a0 - 1), epsilon)


@st.composite
def decimal_qs(draw):
    digits = draw(st.integers(min_value=1, max_value=12))
    numerator = draw(st.integers(min_value=1, max_value=10**digits - 1))
    return Decimal(numerator).scaleb(-digits)


@SETTINGS
@given(q=decimal_qs())
def test_qrr_integers_from_a_decimal_q_never_exceed_its_epsilon(q):
    exact_q = Fraction(q)
    odds = (1 + exact_q) / (1 - exact_q)
    epsilon = exact_log(odds)
    if not (Decimal(ldp.EPSILON_MIN) <= epsilon <= Decimal(ldp.EPSILON_MAX)):
        with pytest.raises(ValueError, match="q"):
            ldp.QRandomizedResponse(str(q))
        return
    m = ldp.QRandomizedResponse(str(q))
    check_integers(m)
    check_effective_epsilon(m, lambda r: r <= odds, epsilon)
    half_plus = (1 + exact_q) / 2
    if half_plus.denominator <= WORD:
        # p = (1 + q) / 2 is represented exactly, so nothing is lost.
        assert Fraction(m.keep, m.modulus) == half_plus
        assert sampler_odds_ratio(m.sampler()) == odds
    else:
        assert m.modulus == WORD


def test_a_q_whose_half_plus_fits_32_bits_uses_its_own_denominator():
    m = ldp.QRandomizedResponse("0.123456789")
    assert Fraction(m.keep, m.modulus) == (1 + Fraction("0.123456789")) / 2
    assert m.modulus == 2 * 10**9 // math.gcd(2 * 10**9, 1_123_456_789)


def test_a_q_with_too_many_digits_is_rounded_toward_more_privacy():
    q = Fraction("0.123456789012345")
    m = ldp.QRandomizedResponse("0.123456789012345")
    assert m.modulus == WORD
    assert Fraction(m.keep, WORD) < (1 + q) / 2 < Fraction(m.keep + 1, WORD)


@pytest.mark.parametrize("modulus", [1, 2, 3, 7, 10**9 + 7, 2**31, 2**31 + 1, 3 * 10**9, WORD - 1, WORD])
def test_acceptance_limit_is_the_largest_multiple_of_the_modulus_in_32_bits(modulus):
    limit = exact.acceptance_limit(modulus)
    assert limit % modulus == 0
    assert limit <= WORD < limit + modulus


def test_float_rounding_is_corrected_at_the_edges_of_the_range():
    for epsilon in (ldp.EPSILON_MIN, ldp.EPSILON_MAX, math.nextafter(ldp.EPSILON_MAX, 0), 1.0):
        a, m = exact.binary_keep(epsilon)
        assert fraction_le_exp(Fraction(a, m - a), epsilon)
        assert not fraction_le_exp(Fraction(a + 1, m - a - 1), epsilon)
        a, b, m = exact.kary_keep_other(epsilon, ldp.K_MAX)
        assert fraction_le_exp(Fraction(a, b), epsilon) and m <= WORD
        assert exact_exp(epsilon) > 1


@pytest.mark.parametrize("function", [exact.binary_keep, exact.oue_false_one,
                                      lambda e: exact.kary_keep_other(e, 3)])
@pytest.mark.parametrize("epsilon", [math.nan, math.inf])
def test_exact_helpers_reject_non_finite_epsilon(function, epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        function(epsilon)

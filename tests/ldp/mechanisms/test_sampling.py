"""ldp.mechanisms.sampling and the sampler integers: exact, at most 2**32, never more epsilon than configured.

Every check recomputes the epsilon of a sampler from its integers with exact rational
and 60-digit decimal arithmetic, independently of the floats ldp uses.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import ldp
from ldp.mechanisms import sampling as sampler_integers
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


@pytest.mark.slow
@SETTINGS
@given(epsilon=epsilons)
def test_bitflip_integers_are_exact_and_never_exceed_epsilon(epsilon):
    m = ldp.BitFlip(epsilon)
    check_integers(m)
    assert m.modulus == WORD
    check_effective_epsilon(m, lambda r: fraction_le_exp(r, epsilon), Decimal(epsilon))
    # Rounded no further than needed: one more "keep" word would exceed epsilon.
    assert not fraction_le_exp(Fraction(m.keep + 1, m.modulus - m.keep - 1), epsilon)


@pytest.mark.slow
@SETTINGS
@given(epsilon=epsilons, k=ks)
def test_krr_integers_are_exact_and_never_exceed_epsilon(epsilon, k):
    m = ldp.KaryRR(epsilon, k)
    check_integers(m)
    check_effective_epsilon(m, lambda r: fraction_le_exp(r, epsilon), Decimal(epsilon))
    # keep is as large as the bound and the 32-bit modulus allow, for the chosen `other`.
    assert (not fraction_le_exp(Fraction(m.keep + 1, m.other), epsilon)) or m.modulus + 1 > WORD


@pytest.mark.slow
@SETTINGS
@given(epsilon=epsilons, k=ks)
def test_sue_integers_are_exact_and_never_exceed_epsilon(epsilon, k):
    m = ldp.SymmetricUnary(epsilon, k)
    check_integers(m)
    assert m.one_if_true + m.one_if_false == m.modulus  # symmetric: q = 1 - p
    check_effective_epsilon(m, lambda r: fraction_le_exp(r, epsilon), Decimal(epsilon))


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_float_rounding_is_corrected_at_the_edges_of_the_range():
    for epsilon in (ldp.EPSILON_MIN, ldp.EPSILON_MAX, math.nextafter(ldp.EPSILON_MAX, 0), 1.0):
        a, m = sampler_integers.binary_keep(epsilon)
        assert fraction_le_exp(Fraction(a, m - a), epsilon)
        assert not fraction_le_exp(Fraction(a + 1, m - a - 1), epsilon)
        a, b, m = sampler_integers.kary_keep_other(epsilon, ldp.K_MAX)
        assert fraction_le_exp(Fraction(a, b), epsilon) and m <= WORD
        assert exact_exp(epsilon) > 1


@pytest.mark.parametrize("function", [sampler_integers.binary_keep, sampler_integers.oue_false_one,
                                      lambda e: sampler_integers.kary_keep_other(e, 3)])
@pytest.mark.parametrize("epsilon", [math.nan, math.inf])
def test_exact_helpers_reject_non_finite_epsilon(function, epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        function(epsilon)


# --- OUE's one_if_false, at its two bounds ------------------------------------------------------
# P(1 | 1) = 1/2, so the channel's odds are (M - a0) / a0 with a0 = one_if_false: a0 must be the
# smallest integer with (M - a0) / a0 <= e^eps. Besides epsilons drawn over the whole range, some
# are drawn just beside a step ln((M - a0) / a0), where a float computation decides by a hair.

A0_RANGE = (math.ceil(WORD / (math.exp(ldp.EPSILON_MAX) + 1)), math.floor(WORD / (math.exp(ldp.EPSILON_MIN) + 1)))
# Float ln((M - a0) / a0) is within ~2e-16 of the true step (ratio and log each rounded once); an
# epsilon at least STEP_GAP away lies on a known side of it, which a float comparison can decide.
STEP_GAP = 1e-15


@st.composite
def epsilons_beside_an_oue_step(draw):
    a0 = draw(st.integers(*A0_RANGE))
    offset = draw(st.floats(min_value=STEP_GAP, max_value=1e-9)) * draw(st.sampled_from([-1, 1]))
    return min(max(math.log((WORD - a0) / a0) + offset, ldp.EPSILON_MIN), ldp.EPSILON_MAX)


oue_epsilons = st.one_of(epsilons, epsilons_beside_an_oue_step())


def oue_odds(one_if_false: int) -> Fraction:
    return Fraction(WORD - one_if_false, one_if_false)


# Epsilons 4e-16 from a step where float ceil(M / (e^eps + 1)) is one too small (glibc's exp).
@pytest.mark.slow
@example(epsilon=0.06701135394733669, k=2)
@example(epsilon=0.10938050699834885, k=3)
@example(epsilon=0.11101761096890551, k=64)
@SETTINGS
@given(epsilon=oue_epsilons, k=ks)
def test_oue_never_has_more_privacy_loss_than_its_configured_epsilon(epsilon, k):
    sampler = ldp.OptimizedUnary(epsilon, k).sampler()
    assert (sampler["modulus"], sampler["one_if_true"]) == (WORD, WORD // 2)
    assert fraction_le_exp(oue_odds(sampler["one_if_false"]), epsilon)


# Epsilons 2e-16 from a step where float ceil(M / (e^eps + 1)) is one too large (glibc's exp).
@pytest.mark.slow
@example(epsilon=0.05011477618001396, k=2)
@example(epsilon=0.05011477618001394, k=5)
@SETTINGS
@given(epsilon=oue_epsilons, k=ks)
def test_oue_gives_up_no_more_than_one_step_of_epsilon(epsilon, k):
    # One 1-bit word fewer where the truth is 0 (a0 - 1) would already exceed epsilon.
    a0 = ldp.OptimizedUnary(epsilon, k).sampler()["one_if_false"]
    assert not fraction_le_exp(oue_odds(a0 - 1), epsilon)


@pytest.mark.slow
@SETTINGS
@given(a0=st.integers(*A0_RANGE))
def test_oue_on_a_float_step_epsilon_never_exceeds_it(a0):
    epsilon = math.log((WORD - a0) / a0)
    assert fraction_le_exp(oue_odds(ldp.OptimizedUnary(epsilon, 2).sampler()["one_if_false"]), epsilon)


@SETTINGS
@given(a=st.integers(WORD // 2 + 1, WORD - 2))
def test_the_bit_flip_on_a_float_step_epsilon_never_exceeds_it(a):
    epsilon = math.log(a / (WORD - a))
    assume(ldp.EPSILON_MIN <= epsilon <= ldp.EPSILON_MAX)
    keep = ldp.BitFlip(epsilon).sampler()["keep"]
    assert fraction_le_exp(Fraction(keep, WORD - keep), epsilon)
    assert not fraction_le_exp(Fraction(keep + 1, WORD - keep - 1), epsilon)  # and gives up no more


@pytest.mark.slow
@SETTINGS
@given(epsilon=st.floats(ldp.EPSILON_MIN, ldp.EPSILON_MAX), k=st.integers(2, ldp.K_MAX))
def test_k_ary_rr_on_its_own_float_step_epsilon_never_exceeds_it(epsilon, k):
    """The float ln(a / b) of a mechanism's own integers, configured again, keeps within it."""
    sampler = ldp.KaryRR(epsilon, k).sampler()
    step = math.log(sampler["keep"] / sampler["other"])
    assume(ldp.EPSILON_MIN <= step)
    again = ldp.KaryRR(step, k).sampler()
    assert fraction_le_exp(Fraction(again["keep"], again["other"]), step)


# The helpers of the multi-select and grid samplers: powers compared with e^eps, lower fractions, d.

def brute_force_below(x: Fraction, max_numerator: int, max_denominator: int) -> Fraction | None:
    best = None
    for q in range(1, max_denominator + 1):
        p = min(max_numerator, math.floor(x * q))
        if p >= 1 and (best is None or Fraction(p, q) > best):
            best = Fraction(p, q)
    return best


@pytest.mark.slow
@SETTINGS
@given(numerator=st.integers(1, 10**6), denominator=st.integers(1, 10**6), max_numerator=st.integers(1, 80),
       max_denominator=st.integers(1, 80))
def test_fraction_below_is_the_largest_fraction_within_the_limits(numerator, denominator, max_numerator,
                                                                  max_denominator):
    x = Fraction(numerator, denominator)
    expected = brute_force_below(x, max_numerator, max_denominator)
    if expected is None:
        with pytest.raises(ValueError, match="no fraction"):
            sampler_integers.fraction_below(x, max_numerator, max_denominator)
        return
    p, q = sampler_integers.fraction_below(x, max_numerator, max_denominator)
    assert Fraction(p, q) == expected and p <= max_numerator and q <= max_denominator


def test_fraction_below_finds_x_itself_and_large_limits_quickly():
    assert sampler_integers.fraction_below(Fraction(3, 7), 2**32, 2**32) == (3, 7)
    x = Fraction(0.05) / 10**6  # the smallest epsilon per step the app allows
    s, t = sampler_integers.fraction_below(x, 2**32, 2**32)
    assert Fraction(s, t) <= x and x - Fraction(s, t) < Fraction(1, t * t) * 2


def decide(numerator: int, denominator: int, epsilon: float) -> bool:
    with localcontext() as context:
        context.prec = 400
        return (Decimal(numerator) / Decimal(denominator)).ln() <= Decimal(epsilon)


@pytest.mark.slow
@SETTINGS
@given(a=st.integers(2**31 + 1, 2**32 - 1), d=st.integers(1, 64), nudge=st.integers(-3, 3))
def test_within_exactly_decides_powers_like_400_digit_logarithms(a, d, nudge):
    b = 2**32 - a
    # An epsilon within a few ulps of d ln(a / b), where a fixed 60 digits would not do for d = 64.
    epsilon = d * math.log(a / b)
    for _ in range(abs(nudge)):
        epsilon = math.nextafter(epsilon, math.inf if nudge > 0 else 0)
    assert sampler_integers.within_exactly(a**d, b**d, epsilon) == decide(a**d, b**d, epsilon)


def test_within_exactly_agrees_with_within_on_small_ratios():
    for numerator, denominator, epsilon in [(3, 1, math.log(3)), (3, 1, math.nextafter(math.log(3), 0)),
                                            (2**32 - 5, 5, 20.0), (7, 2, 1.25)]:
        assert sampler_integers.within_exactly(numerator, denominator, epsilon) == sampler_integers.within(
            numerator, denominator, epsilon)


@pytest.mark.parametrize("k, at_most, d", [(2, None, 2), (5, None, 5), (5, 1, 2), (5, 2, 4), (5, 3, 5), (64, 10, 20)])
def test_hamming_is_k_or_twice_at_most(k, at_most, d):
    assert sampler_integers.hamming(k, at_most) == d

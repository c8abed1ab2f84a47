"""The exact helpers behind the new samplers: powers compared with e^eps, lower fractions, d."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp import registry, sampler_integers

SETTINGS = settings(max_examples=300, deadline=None, database=None, derandomize=True)


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
        assert sampler_integers.within_exactly(numerator, denominator, epsilon) == sampler_integers.within(numerator, denominator, epsilon)


@pytest.mark.parametrize("k, at_most, d", [(2, None, 2), (5, None, 5), (5, 1, 2), (5, 2, 4), (5, 3, 5), (64, 10, 20)])
def test_hamming_is_k_or_twice_at_most(k, at_most, d):
    assert sampler_integers.hamming(k, at_most) == d


def test_sampler_epsilon_of_the_new_kinds_comes_from_their_integers():
    m = 2**32
    keep = 3 * 2**30
    assert registry.sampler_epsilon({"kind": "multiselect", "k": 5, "at_most": 2, "modulus": m, "keep": keep}) \
        == pytest.approx(4 * math.log(3))
    assert registry.sampler_epsilon({"kind": "onebit", "steps": 9, "modulus": m, "keep": keep}) == pytest.approx(
        math.log(3))
    assert registry.sampler_epsilon({"kind": "dlaplace", "steps": 3, "scale_num": 7, "scale_den": 2, "bound": 50}) \
        == 6 / 7
    assert registry.sampler_channel({"kind": "onebit", "steps": 9, "modulus": m, "keep": keep}) == (keep, m - keep, m)

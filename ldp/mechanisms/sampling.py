"""The integers a browser samples exactly, for a configured epsilon: pure integer arithmetic.

Each mechanism builds its sampler from these and carries its own privacy map (the loss its integers
give: `Mechanism.sampler_epsilon`); this module only finds the integers.

Every probability the respondent's browser uses is a fraction with a denominator
(the modulus M) of at most 2**32, so it can be sampled exactly from uniform
32-bit words by rejection: reject words >= M * floor(2**32 / M), take the rest mod M.
Rounding always goes toward more privacy, so the effective epsilon computed from
the integers never exceeds the configured one: each candidate ratio is compared with e^eps
exactly (`within`), not through float logarithms, which can err by an ulp either way.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

WORD = 2**32


def _check_fraction_ok(value: float, name: str) -> None:
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite")


def within(numerator: int, denominator: int, epsilon: float) -> bool:
    """numerator / denominator <= e^epsilon, decided exactly.

    epsilon is a float, so a rational; e^epsilon is then irrational (epsilon != 0) and never
    equals the ratio. Ratios of integers below 2^33 that differ from it at all differ by more
    than 1e-20 relative, far beyond the error of a 60-digit e^epsilon.

    >>> within(3, 1, math.log(3)), within(3, 1, math.nextafter(math.log(3), 0))
    (True, False)
    """
    with localcontext() as context:
        context.prec = 60
        return Decimal(numerator) / Decimal(denominator) <= Decimal(epsilon).exp()


def binary_keep(epsilon: float) -> tuple[int, int]:
    """(a, M) with M = 2**32 and a = floor(M e^eps / (1 + e^eps)), so ln(a / (M - a)) <= eps.

    The float estimate is corrected by exact checks: a is lowered until a / (M - a) <= e^eps,
    then raised while a + 1 still fits.
    """
    _check_fraction_ok(epsilon, "epsilon")
    a = math.floor(WORD / (1.0 + math.exp(-epsilon)))
    while a > WORD // 2 and not within(a, WORD - a, epsilon):
        a -= 1
    while within(a + 1, WORD - a - 1, epsilon):
        a += 1
    return a, WORD


def kary_keep_other(epsilon: float, k: int) -> tuple[int, int, int]:
    """(a, b, M) with a/b just below e^eps and M = a + (k-1) b <= 2**32.

    b = floor(2**32 / (e^eps + k - 1)), a = floor(b e^eps); effective eps = ln(a / b).
    """
    _check_fraction_ok(epsilon, "epsilon")
    e = math.exp(epsilon)
    b = math.floor(WORD / (e + k - 1))
    a = math.floor(b * e)
    while a + (k - 1) * b > WORD or not within(a, b, epsilon):
        a -= 1
    while a + 1 + (k - 1) * b <= WORD and within(a + 1, b, epsilon):
        a += 1
    return a, b, a + (k - 1) * b


def oue_false_one(epsilon: float) -> tuple[int, int, int]:
    """(a1, a0, M) for optimized unary encoding: P(1|1) = 1/2, P(1|0) = a0/M >= 1/(e^eps + 1).

    a0 is rounded up (more privacy); effective eps = ln((M - a0) / a0).
    """
    _check_fraction_ok(epsilon, "epsilon")
    a0 = math.ceil(WORD / (math.exp(epsilon) + 1.0))
    while not within(WORD - a0, a0, epsilon):
        a0 += 1
    while a0 > 1 and within(WORD - a0 + 1, a0 - 1, epsilon):
        a0 -= 1
    return WORD // 2, a0, WORD


def decimal_half_plus(q: Fraction) -> tuple[int, int]:
    """(a, M) with a/M = (1 + q)/2 exactly when its denominator fits in 32 bits.

    Otherwise a = floor(2**32 (1 + q) / 2), which is closer to 1/2 (more privacy).
    """
    p = (1 + q) / 2
    if p.denominator <= WORD:
        return p.numerator, p.denominator
    return math.floor(p * WORD), WORD


def within_exactly(numerator: int, denominator: int, epsilon: float) -> bool:
    """numerator / denominator <= e^epsilon for positive integers of any size, decided exactly.

    Both sides are computed correctly rounded to `prec` digits; when they are closer than the
    rounding could explain, the precision doubles. e^epsilon is irrational (epsilon != 0), so the
    loop ends. Used for powers such as (a / b)^d, whose digits exceed what `within` assumes.

    >>> within_exactly(3**5, 1, 5 * math.log(3)), within_exactly(3**5, 1, math.nextafter(5 * math.log(3), 0))
    (True, False)
    """
    precision = 60
    while True:
        with localcontext() as context:
            context.prec = precision
            ratio = Decimal(numerator) / Decimal(denominator)
            bound = Decimal(epsilon).exp()
            slack = bound.scaleb(3 - precision)  # far more than two half-ulp roundings
            if ratio < bound - slack:
                return True
            if ratio > bound + slack:
                return False
        precision *= 2


def hamming(k: int, at_most: int | None) -> int:
    """Most bits two multi-select answers can differ in: k, or min(k, 2 at_most) when at most
    `at_most` options may be ticked (|A xor B| <= |A| + |B|).

    >>> hamming(5, None), hamming(5, 2), hamming(5, 3)
    (5, 4, 5)
    """
    return k if at_most is None else min(k, 2 * at_most)


def power_keep(epsilon: float, d: int) -> tuple[int, int]:
    """(a, M) with M = 2**32 and the largest a with (a / (M - a))^d <= e^eps, decided exactly:
    every one of d bits kept with probability a / M costs d ln(a / (M - a)) <= eps together.

    >>> a, m = power_keep(math.log(9), 2)
    >>> within_exactly(a**2, (m - a) ** 2, math.log(9)), within_exactly((a + 1)**2, (m - a - 1)**2, math.log(9))
    (True, False)
    """
    _check_fraction_ok(epsilon, "epsilon")
    a = math.floor(WORD / (1.0 + math.exp(-epsilon / d)))
    while a > WORD // 2 and not within_exactly(a**d, (WORD - a) ** d, epsilon):
        a -= 1
    while within_exactly((a + 1) ** d, (WORD - a - 1) ** d, epsilon):
        a += 1
    return a, WORD


def fraction_below(x: Fraction, max_numerator: int, max_denominator: int) -> tuple[int, int]:
    """The largest fraction p / q <= x with 1 <= p <= max_numerator and 1 <= q <= max_denominator,
    as (p, q), by a walk down the Stern-Brocot tree (lo <= x < hi, neighbours; every fraction
    strictly between neighbours has a larger numerator and a larger denominator than both).

    >>> fraction_below(Fraction(1, 3), 10, 10), fraction_below(Fraction(314159, 100000), 1000, 1000)
    ((1, 3), (688, 219))
    """
    if x <= 0:
        raise ValueError("x must be positive")
    lo_p, lo_q, hi_p, hi_q = 0, 1, 1, 0
    while True:
        # Raise lo by as many copies of hi as keep it <= x and within the limits.
        steps = math.floor((x * lo_q - lo_p) / (hi_p - x * hi_q))
        steps = min(steps, (max_numerator - lo_p) // hi_p if hi_p else steps,
                    (max_denominator - lo_q) // hi_q if hi_q else steps)
        lo_p, lo_q = lo_p + steps * hi_p, lo_q + steps * hi_q
        if Fraction(lo_p, lo_q) == x or lo_p + hi_p > max_numerator or lo_q + hi_q > max_denominator:
            break
        # Lower hi by as many copies of lo as keep it > x.
        steps = math.ceil((hi_p - x * hi_q) / (x * lo_q - lo_p)) - 1
        hi_p, hi_q = hi_p + steps * lo_p, hi_q + steps * lo_q
        if lo_p + hi_p > max_numerator or lo_q + hi_q > max_denominator:
            break
    if lo_p < 1:
        raise ValueError(f"no fraction below {x} has a numerator of at least 1 within the limits")
    return lo_p, lo_q

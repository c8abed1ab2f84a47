"""Integer parameters a browser can sample exactly.

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
from typing import Any

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


def acceptance_limit(modulus: int) -> int:
    """Words below this limit are accepted when sampling uniformly below `modulus`."""
    return modulus * (WORD // modulus)


def sampler_channel(sampler: dict[str, Any]) -> tuple[int, int, int]:
    """(a, b, M) with p = a / M and q_other = b / M for a published sampler: keep and other
    (index reports), or one_if_true and one_if_false (unary bits); (1, 0, 1) for a direct question."""
    if sampler["kind"] == "direct":
        return 1, 0, 1
    high, low = ("keep", "other") if sampler["kind"] == "grr" else ("one_if_true", "one_if_false")
    return sampler[high], sampler[low], sampler["modulus"]


def sampler_epsilon(sampler: dict[str, Any]) -> float:
    """The epsilon a sampler's integers give: ln(keep / other) for index reports (the odds of
    two reports), ln(a1 (M - a0) / (a0 (M - a1))) for unary bits (two bits differ per pair of answers);
    infinite for a direct question (not randomized).

    >>> sampler_epsilon({"kind": "grr", "k": 2, "modulus": 4, "keep": 3, "other": 1}) == math.log(3)
    True
    """
    if sampler["kind"] == "direct":
        return math.inf
    if sampler["kind"] == "grr":
        return math.log(sampler["keep"] / sampler["other"])
    a1, a0, m = sampler["one_if_true"], sampler["one_if_false"], sampler["modulus"]
    return math.log(a1 * (m - a0) / (a0 * (m - a1)))

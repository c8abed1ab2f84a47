"""What one browser's reports in two waves of a series share, from the published samplers' integers: the channel a
browser new to the series follows in one wave, and how often its two waves' reports are equal. An outside audit of a
series' pages (bench/audit_randomizer.py --next-wave) tests both.

A remembered question publishes its instantaneous sampler and its permanent one (index reports, grr, or unary bits).
A browser new to the series draws a permanent response B' and sends a randomization of it: one wave's report follows
the composed channel (`ldp.mechanisms.remembered.compose`), as a sampler of the instantaneous layer's kind
(`composed_sampler`).

Two waves' reports r1, r2 of one browser that gave the same answer x in both randomize the same B'
(`remembered_agreement`):
    index:  P(r1 = r2) = p2 p2' + (k - 1) q2 q2'       whatever B' is (each report keeps it or moves off it)
    unary:  P(r1 = r2) = prod_j [P(B'_j = 1) (t t' + (1 - t)(1 - t')) + P(B'_j = 0) (f f' + (1 - f)(1 - f'))]
with (p2, q2), (p2', q2') the two waves' instantaneous layers, t and f their per-bit probabilities of a 1 for a bit of
B' that is 1 or 0, P(B'_x = 1) = p1 and P(B'_j = 1) = q1 elsewhere. Two independent draws of the composed channels
(a page that re-draws the permanent layer every wave, or a changed answer x1 != x2, whose permanent response is a new
draw) agree with probability sum_r M(r | x1) M'(r | x2) (`independent_agreement`). A page that sends B' without the
instantaneous layer agrees always. Every figure is an exact fraction of the integers.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..mechanisms.registry import sampler_channel
from ..mechanisms.remembered import compose

REMEMBERING_KINDS = ("grr", "unary")


def layer(sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
    """(p, q_other) of a published sampler, exact: for unary bits the probabilities of a 1 for the true bit and
    another."""
    a, b, modulus = sampler_channel(sampler)
    return Fraction(a, modulus), Fraction(b, modulus)


def _check(permanent: dict[str, Any], *instants: dict[str, Any]) -> None:
    for instant in instants:
        if instant["kind"] not in REMEMBERING_KINDS or instant["kind"] != permanent["kind"] \
                or instant["k"] != permanent["k"]:
            raise ValueError("both layers must be grr or both unary, with the same k")


def composed_sampler(permanent: dict[str, Any], instant: dict[str, Any]) -> dict[str, Any]:
    """The composed channel as a sampler of the instantaneous layer's kind, over the smallest common modulus."""
    _check(permanent, instant)
    k, unary = instant["k"], instant["kind"] == "unary"
    p, q = compose(layer(permanent), layer(instant), k, unary)
    modulus = math.lcm(p.denominator, q.denominator)
    a, b = p.numerator * (modulus // p.denominator), q.numerator * (modulus // q.denominator)
    if unary:
        return {"kind": "unary", "k": k, "modulus": modulus, "one_if_true": a, "one_if_false": b}
    return {"kind": "grr", "k": k, "modulus": modulus, "keep": a, "other": b}


def _same_bit(one: Fraction, two: Fraction) -> Fraction:
    """P(two independent bits with these probabilities of a 1 are equal)."""
    return one * two + (1 - one) * (1 - two)


def remembered_agreement(permanent: dict[str, Any], first: dict[str, Any], second: dict[str, Any]) -> Fraction:
    """P(the reports of two waves are equal) for one browser with the same answer in both: one permanent response,
    randomized by `first`'s instantaneous layer and then by `second`'s (module docstring). The same for every answer."""
    _check(permanent, first, second)
    k = permanent["k"]
    (t1, f1), (t2, f2) = layer(first), layer(second)
    if permanent["kind"] == "grr":
        return Fraction(t1 * t2 + (k - 1) * f1 * f2)
    p1, q1 = layer(permanent)
    one, zero = _same_bit(t1, t2), _same_bit(f1, f2)
    return Fraction((p1 * one + (1 - p1) * zero) * (q1 * one + (1 - q1) * zero) ** (k - 1))


def independent_agreement(first: dict[str, Any], second: dict[str, Any], x1: int, x2: int) -> Fraction:
    """P(a report of `first` for answer x1 equals an independent report of `second` for x2): two grr or two unary
    samplers of the same k (for a remembered question, `composed_sampler`s)."""
    if first["kind"] not in REMEMBERING_KINDS or first["kind"] != second["kind"] or first["k"] != second["k"]:
        raise ValueError("two grr or two unary samplers with the same k")
    k = first["k"]
    (p, q), (p2, q2) = layer(first), layer(second)
    if first["kind"] == "grr":
        return Fraction(p * p2 + (k - 1) * q * q2 if x1 == x2 else p * q2 + q * p2 + (k - 2) * q * q2)
    found = Fraction(1)
    for j in range(k):
        found *= _same_bit(p if j == x1 else q, p2 if j == x2 else q2)
    return found

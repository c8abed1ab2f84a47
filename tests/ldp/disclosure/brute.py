"""The channels written afresh from each mechanism's sampler rule (its docstring's words, its integers), every
report enumerated: what `ldp.disclosure` must equal, shared by the tests of the breach figures."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import ldp
from ldp.mechanisms.dlaplace import DiscreteLaplace


def channel(mechanism) -> dict[object, list]:
    """{report: [P(report | answer) for every answer]}, every report the browser can send."""
    name = mechanism.name
    if name in ("direct", "direct_number"):
        size = mechanism.k
        return {r: [Fraction(int(r == x)) for x in range(size)] for r in range(size)}
    if name in ("qrr", "bitflip", "krr"):  # U < keep: the truth; else one other option, each `other` of M
        keep, other, m = Fraction(mechanism.keep), Fraction(mechanism.other), mechanism.modulus
        return {r: [keep / m if r == x else other / m for x in range(mechanism.k)] for r in range(mechanism.k)}
    if name in ("sue", "oue"):  # bit j is 1 w.p. one_if_true / M where the truth is, one_if_false / M elsewhere
        k, m = mechanism.k, mechanism.modulus
        return {bits: [math.prod(_bit(bits[j], Fraction(mechanism.one_if_true if j == x else mechanism.one_if_false, m))
                                 for j in range(k)) for x in range(k)]
                for bits in product((0, 1), repeat=k)}
    if name == "multiselect":  # every true bit kept w.p. keep / M, flipped otherwise
        k, keep = mechanism.k, Fraction(mechanism.keep, mechanism.modulus)
        answers = list(product((0, 1), repeat=k))
        return {bits: [math.prod(keep if bits[j] == x[j] else 1 - keep for j in range(k)) for x in answers]
                for bits in product((0, 1), repeat=k)}
    if name == "onebit":  # U1 < i over `steps` makes the bit; then kept w.p. keep / M
        keep, n = Fraction(mechanism.keep, mechanism.modulus), mechanism.steps
        one = [Fraction(i, n) * keep + (1 - Fraction(i, n)) * (1 - keep) for i in range(n + 1)]
        return {1: one, 0: [1 - x for x in one]}
    if name == "dlaplace":
        return laplace(mechanism)
    raise AssertionError(name)


def laplace(mechanism: DiscreteLaplace) -> dict[object, list]:
    """r = i + Z clamped to [-R, N + R]: P(Z = z) = (1 - a) / (1 + a) a^|z|, the clamped ends the tails' sums."""
    a = math.exp(-mechanism.scale_den / mechanism.scale_num)
    n, bound = mechanism.steps, mechanism.bound
    c = (1 - a) / (1 + a)
    found = {}
    for r in range(-bound, n + bound + 1):
        if r == -bound:  # P(Z <= -R - i)
            found[r] = [a ** (bound + i) / (1 + a) for i in range(n + 1)]
        elif r == n + bound:  # P(Z >= N + R - i)
            found[r] = [a ** (n + bound - i) / (1 + a) for i in range(n + 1)]
        else:
            found[r] = [c * a ** abs(r - i) for i in range(n + 1)]
    return found


def _bit(value: int, one: Fraction) -> Fraction:
    return one if value else 1 - one


def reports(mechanism) -> list[list]:
    """One row per report: P(report | answer) over the answers as `ldp.disclosure.answers` orders them (a
    multi-select answer by its bitmask: product() lists bit 0 as the slowest digit, so reorder)."""
    rows = list(channel(mechanism).values())
    if mechanism.name != "multiselect":
        return rows
    masks = [sum(bit << j for j, bit in enumerate(x)) for x in product((0, 1), repeat=mechanism.k)]
    return [[row[masks.index(mask)] for mask in range(len(masks))] for row in rows]


def accuracy(mechanism, prior) -> object:
    """sum over every report of max over answers of pi(x) P(r | x)."""
    terms = [max(p * likelihood for p, likelihood in zip(prior, row, strict=True)) for row in reports(mechanism)]
    return math.fsum(terms) if mechanism.name == "dlaplace" else sum(terms, Fraction(0))


def largest_ratio(mechanism) -> float:
    """max over reports and answers x, x' of P(r | x) / P(r | x')."""
    return max(max(row) / min(row) for row in channel(mechanism).values())


MECHANISMS = {
    "qrr": ldp.QRandomizedResponse("2/3"),
    "bitflip": ldp.BitFlip(1.3),
    "krr": ldp.KaryRR(1.0, 4),
    "sue": ldp.SymmetricUnary(2.0, 4),
    "oue": ldp.OptimizedUnary(1.5, 5),
    "multiselect": ldp.MultiSelect(2.0, 3),
    "onebit": ldp.OneBitMean(1.0, "0", "5", "1"),
    "dlaplace": ldp.DiscreteLaplace(2.0, "0", "4", "1"),
    "direct": ldp.Direct(3),
    "direct_number": ldp.DirectNumber("0", "3", "1"),
}

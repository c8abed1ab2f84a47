"""Each mechanism's channel P(report | answer) exactly, as rows: one row per class of reports whose
likelihoods over the answers are proportional (merging them changes no Bayes guess), the row holding
P(report in the class | answer) for every answer.

Exact fractions of the sampler's integers for every mechanism but discrete Laplace, whose a = e^(-s/t)
is irrational (floats). The answers are those `breach.answers` counts: the k options of a one-of-k
question, the 2^k subsets of a multi-select one (bitmask order), the steps + 1 grid values of a number. A
remembered question's one wave (`ldp.mechanisms.remembered.Composed`) is an index or unary channel of the composed (p,
q_other).

Discrete Laplace's reports r <= 0 all have likelihoods proportional to a^i over the true index i (and the
clamp at -bound only sums some of them), likewise r >= steps: each side is one class,
P(r <= 0 | i) = P(Z <= -i) = a^i / (1 + a), so the rows are steps + 1, whatever the bound.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..mechanisms.base import Mechanism
from ..mechanisms.dlaplace import DiscreteLaplace
from ..mechanisms.grid import GridMechanism
from ..mechanisms.index import IndexMechanism
from ..mechanisms.multiselect import MultiSelect
from ..mechanisms.onebit import OneBitMean
from ..mechanisms.remembered import Composed
from ..mechanisms.unary import UnaryMechanism

Number = float | Fraction
Rows = list[list[Number]]
ENUMERABLE_BITS = 20  # at most 2^20 cells of reports x answers for unary and multi-select reports


def answers(mechanism: Mechanism) -> int:
    """How many answers a prior ranges over: k (one of k), 2^k (multiselect), steps + 1 (numeric)."""
    if isinstance(mechanism, MultiSelect):
        return 1 << mechanism.k
    if isinstance(mechanism, GridMechanism):
        return mechanism.steps + 1
    if isinstance(mechanism, (IndexMechanism, UnaryMechanism, Composed)):  # Composed: one wave's two layers
        return mechanism.k
    raise ValueError(f"no breach figures for {type(mechanism).__name__}")


def bit_channel(mechanism: Mechanism) -> tuple[Fraction, Fraction]:
    """(p, q_other) exactly, from the sampler's integers (index reports, unary bits, multi-select, 1-bit)."""
    if not mechanism.randomized:
        return Fraction(1), Fraction(0)
    a, b, modulus = mechanism.channel()
    return Fraction(a, modulus), Fraction(b, modulus)


def rows(mechanism: Mechanism) -> Rows:
    """The channel's rows (see the module docstring); unary and multi-select enumerate 2^k reports."""
    if isinstance(mechanism, DiscreteLaplace):
        return _laplace(mechanism)
    if isinstance(mechanism, GridMechanism) and not mechanism.randomized:  # direct_number: the identity
        return _identity(mechanism.steps + 1)
    p, q = bit_channel(mechanism)
    if isinstance(mechanism, OneBitMean):
        steps = mechanism.steps
        one: list[Number] = [q + Fraction(i, steps) * (p - q) for i in range(steps + 1)]
        return [[1 - x for x in one], one]
    if isinstance(mechanism, MultiSelect):
        k = _enumerable(mechanism.k, 2 * mechanism.k)
        return [[p ** (k - (x ^ y).bit_count()) * (1 - p) ** (x ^ y).bit_count() for x in range(1 << k)]
                for y in range(1 << k)]
    if isinstance(mechanism, UnaryMechanism) or isinstance(mechanism, Composed) and mechanism.unary:
        k = _enumerable(mechanism.k, mechanism.k)
        return [[_bits(y, x, k, p, q) for x in range(k)] for y in range(1 << k)]
    if isinstance(mechanism, (IndexMechanism, Composed)):
        return [[p if r == x else q for x in range(mechanism.k)] for r in range(mechanism.k)]
    raise ValueError(f"no channel for {type(mechanism).__name__}")


def _enumerable(k: int, bits: int) -> int:
    """k, if 2^bits cells (reports times answers) are few enough to enumerate; ValueError otherwise."""
    if bits > ENUMERABLE_BITS:
        raise ValueError(f"{k} options make 2^{bits} reports and answers: too many to enumerate")
    return k


def _bits(y: int, x: int, k: int, p: Fraction, q: Fraction) -> Fraction:
    """P(bit pattern y | one-hot truth x): each bit 1 w.p. p where the truth is, q elsewhere."""
    found = Fraction(1)
    for j in range(k):
        one = p if j == x else q
        found *= one if (y >> j) & 1 else 1 - one
    return found


def _identity(size: int) -> Rows:
    return [[Fraction(int(r == x)) for x in range(size)] for r in range(size)]


def _laplace(mechanism: DiscreteLaplace) -> Rows:
    a = math.exp(-mechanism.scale_den / mechanism.scale_num)
    steps = mechanism.steps
    c = (1 - a) / (1 + a)  # P(Z = 0)
    low: list[Number] = [a**i / (1 + a) for i in range(steps + 1)]
    high: list[Number] = [a ** (steps - i) / (1 + a) for i in range(steps + 1)]
    middle: Rows = [[c * a ** abs(r - i) for i in range(steps + 1)] for r in range(1, steps)]
    return [low, *middle, high]

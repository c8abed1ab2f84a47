"""The Bayes attacker's accuracy sum_r max_x pi(x) P(r | x) of one question, in closed form or by a short
dynamic programme per kind of report (checked against the plain sum over every report in the tests):

- one index (q-RR, bit flip, k-RR, direct): P(r | x) = p if r = x else q, and p >= q, so the best answer
  for report r is r itself or the most likely answer: sum_r max(p pi_r, q max pi).
- unary bits (SUE, OUE), pi sorted so that pi_1 >= ... >= pi_k: P(y | x) = Q0(y) L(y_x) with
  Q0(y) = prod_j q^y_j (1 - q)^(1 - y_j), L(1) = p / q > 1 > L(0) = (1 - p) / (1 - q). Group the 2^k
  patterns by their first set bit j in that order (the bits after it sum out to 1):
      p pi_1 + sum_{j=2..k} (1 - q)^(j-2) max(p (1 - q) pi_j, q (1 - p) pi_1) + (1 - q)^(k-1) (1 - p) pi_1.
- multi-select bits: P(y | x) = p^(k - d) (1 - p)^d with d = |x xor y|; max_x pi(x) w^d(x, y), w = (1 - p) / p,
  is a distance transform on the hypercube, one bit at a time: f(y) <- max(f(y), w f(y xor bit)),
  k 2^k steps in integers.
- the 1-bit mean: two reports, each a sum over the grid.
- discrete Laplace (`channels._laplace`'s rows): the interior reports' max_i pi_i a^|r - i| is a distance
  transform on the line (a left and a right pass), O(steps).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from math import lcm

from ..mechanisms.base import Mechanism
from ..mechanisms.dlaplace import DiscreteLaplace
from ..mechanisms.grid import GridMechanism
from ..mechanisms.index import IndexMechanism
from ..mechanisms.multiselect import MultiSelect
from ..mechanisms.onebit import OneBitMean
from ..mechanisms.remembered import Composed
from ..mechanisms.unary import UnaryMechanism
from .channels import Number, _enumerable, bit_channel


def accuracy(mechanism: Mechanism, pi: Sequence[Fraction]) -> Number:
    """sum_r max_x pi(x) P(r | x) for a prior already checked (see the module docstring)."""
    if not mechanism.randomized:
        return Fraction(1)  # the report is the answer
    if isinstance(mechanism, DiscreteLaplace):
        return laplace(mechanism, [float(x) for x in pi])
    p, q = bit_channel(mechanism)
    if isinstance(mechanism, OneBitMean):
        steps = mechanism.steps
        one = [q + Fraction(i, steps) * (p - q) for i in range(steps + 1)]
        return max(x * y for x, y in zip(pi, one, strict=True)) + max(x * (1 - y) for x, y in zip(pi, one, strict=True))
    if isinstance(mechanism, MultiSelect):
        return hypercube(mechanism, pi)
    if isinstance(mechanism, UnaryMechanism) or isinstance(mechanism, Composed) and mechanism.unary:
        return unary(p, q, pi)  # a remembered question's one wave: both layers composed, a channel of the same form
    if isinstance(mechanism, (IndexMechanism, Composed)):
        top = max(pi)
        return sum((max(p * x, q * top) for x in pi), Fraction(0))
    if isinstance(mechanism, GridMechanism):
        raise ValueError(f"no breach figures for {mechanism.name}")
    raise ValueError(f"no breach figures for {type(mechanism).__name__}")


def unary(p: Fraction, q: Fraction, pi: Sequence[Fraction]) -> Fraction:
    """The unary encodings' closed form (module docstring); needs 0 < q < p < 1."""
    if not 0 < q < p < 1:
        raise ValueError("a unary channel needs 0 < q_other < p < 1")
    ranked = sorted(pi, reverse=True)
    first = ranked[0]
    found = p * first + (1 - q) ** (len(ranked) - 1) * (1 - p) * first
    for j, share in enumerate(ranked[1:]):  # j = 0 is the second-ranked option
        found += (1 - q) ** j * max(p * (1 - q) * share, q * (1 - p) * first)
    return found


def hypercube(mechanism: MultiSelect, pi: Sequence[Fraction]) -> Fraction:
    """sum_y max_x pi(x) keep^(k-d) (M - keep)^d / M^k, in integers: pi(x) = n_x / D over a common D."""
    k = _enumerable(mechanism.k, mechanism.k)
    keep, flip, modulus = mechanism.keep, mechanism.modulus - mechanism.keep, mechanism.modulus
    denominator = lcm(*(x.denominator for x in pi))
    # f(y) = max over x of n_x keep^(k - d) flip^d for the bits seen so far (each bit divides keep out once).
    f = [int(x * denominator) * keep**k for x in pi]
    for j in range(k):
        bit = 1 << j
        f = [max(value, f[y ^ bit] // keep * flip) for y, value in enumerate(f)]
    return Fraction(sum(f), denominator * modulus**k)


def laplace(mechanism: DiscreteLaplace, pi: Sequence[float]) -> float:
    """The discrete Laplace sum in floats (module docstring): the end classes r <= 0 and r >= steps weigh
    max_i pi_i a^i / (1 + a) and max_i pi_i a^(steps - i) / (1 + a), each interior report c max_i pi_i a^|r-i|."""
    a = math.exp(-mechanism.scale_den / mechanism.scale_num)
    steps = mechanism.steps
    left = list(pi)  # left[r] = max over i <= r of pi_i a^(r - i)
    for r in range(1, steps + 1):
        left[r] = max(left[r], a * left[r - 1])
    right = list(pi)  # right[r] = max over i >= r of pi_i a^(i - r)
    for r in range(steps - 1, -1, -1):
        right[r] = max(right[r], a * right[r + 1])
    c = (1 - a) / (1 + a)
    interior = math.fsum(max(left[r], right[r]) for r in range(1, steps))
    found = c * interior + (right[0] + left[steps]) / (1 + a)
    return min(1.0, max(found, max(pi)))  # the truth lies there; rounding may step out by an ulp

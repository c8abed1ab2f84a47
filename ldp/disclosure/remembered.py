"""What stolen reports reveal of a question that remembers its randomization across waves
(`ldp.mechanisms.remembered`): a
permanent randomized response B' kept per respondent and answer, and each wave a fresh randomization of it.

One wave's stored report is a draw of the composed channel M = M_instant M_permanent (`breach` of the `Composed`
mechanism). The reports of w waves of the same respondent (linked: the waves' rows are not, but their common
pattern can link them, docs/privacy.md) are w independent randomizations of the same B', so their likelihood is

    P(r_1, ..., r_w | x) = sum_b P_permanent(b | x) prod_i P_instant(r_i | b),

the same for every order of the reports: a class of reports is the count of each report over the waves (unary:
the ones of each bit, the bits independent given x). `accuracy(layers, prior, w)` sums max_x pi(x) P(class | x)
over the classes exactly. Every wave's reports are a randomization of B' alone, so no number of waves reveals
more than B' itself: the permanent layer's accuracy bounds them all, and is their limit as w grows
(`accuracy(layers, prior, None)`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import product

from ..mechanisms.remembered import Remembered
from . import sums
from .breach import Breach, check_prior, odds_bound
from .channels import ENUMERABLE_BITS, Number, bit_channel

CLASSES_MAX = 1 << ENUMERABLE_BITS  # classes of reports x answers enumerated at most


def accuracy(layers: Remembered, prior: Sequence[Number], waves: int | None) -> Fraction:
    """sum over classes of the reports of `waves` waves of max_x pi(x) P(class | x) (module docstring); None: the
    permanent layer's, the bound over any number of waves."""
    pi = check_prior(prior, layers.k)
    if waves is None:
        return Fraction(sums.accuracy(layers.permanent, pi))
    return sum((max(share * row[x] for x, share in enumerate(pi)) for row in rows(layers, waves)), Fraction(0))


def breach(layers: Remembered, prior: Sequence[Number], waves: int | None = 1) -> Breach:
    """The three figures for `waves` linked waves (None: any number; the odds bound then the permanent layer's)."""
    pi = check_prior(prior, layers.k)
    bound = odds_bound(layers.permanent) if waves is None else \
        math.exp(min(waves * layers.wave_epsilon, layers.all_waves_epsilon))
    return Breach(float(accuracy(layers, pi, waves)), float(max(pi)), bound)


def rows(layers: Remembered, waves: int) -> list[list[Fraction]]:
    """P(class | x) for every class of the reports of `waves` waves and every answer x (module docstring)."""
    if waves < 1:
        raise ValueError("at least one wave")
    (p1, q1), (p2, q2) = bit_channel(layers.permanent), bit_channel(layers.instant)
    k = layers.k
    if layers.unary:  # per bit: the ones s among the waves, given whether the truth is this bit
        if (waves + 1) ** k * k > CLASSES_MAX:
            raise ValueError(f"{waves} waves of {k} bits: too many classes of reports to enumerate")
        ones = {truth: [sum((one_b * _binomial(waves, s, p2 if b else q2) for b, one_b in ((1, first), (0, 1 - first))),
                            Fraction(0)) for s in range(waves + 1)]
                for truth, first in ((True, p1), (False, q1))}
        return [[math.prod((ones[j == x][s] for j, s in enumerate(counts)), start=Fraction(1)) for x in range(k)]
                for counts in product(range(waves + 1), repeat=k)]
    classes = list(_compositions(waves, k))
    if len(classes) * k > CLASSES_MAX:
        raise ValueError(f"{waves} waves of {k} options: too many classes of reports to enumerate")
    found = []
    for counts in classes:
        ways = math.factorial(waves) // math.prod(math.factorial(c) for c in counts)
        given = [ways * math.prod(((p2 if j == b else q2) ** c for j, c in enumerate(counts)), start=Fraction(1))
                 for b in range(k)]  # P(class | B' = b)
        found.append([sum(((p1 if b == x else q1) * given[b] for b in range(k)), Fraction(0)) for x in range(k)])
    return found


def _binomial(n: int, s: int, one: Fraction) -> Fraction:
    return math.comb(n, s) * one**s * (1 - one) ** (n - s)


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of `parts` non-negative integers summing to `total`."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)

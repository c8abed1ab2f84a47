"""Privacy figures rounded in the respondent's favour, never to nearest.

A figure shown to a respondent or an admin (epsilon, the odds factor e^epsilon, the best guess
from one report) is rounded up, so what is said is never below the true loss. The figures come
from the sampler's integers (`Loss`), not from a float epsilon: e^epsilon of an index, unary or
bit sampler is a ratio of integers, exactly, and a discrete Laplace sampler's epsilon is a ratio
of integers itself. Irrational values (a logarithm, e^x of a rational x) are computed with 60
digits, correctly rounded, and raised by far more than their error before rounding up.

>>> kary = {"kind": "grr", "k": 2, "modulus": 4, "keep": 3, "other": 1}
>>> loss_of(kary).epsilon_up(3), loss_of(kary).odds_up(2), loss_of(kary).guess_up(0)
(Decimal('1.099'), Decimal('3.00'), Decimal('75'))
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

from ..mechanisms import registry

PRECISION = 60
MARGIN = Decimal("1e-45")  # relative: far above the error of a few 60-digit roundings


def ceil_places(x: Fraction | Decimal, places: int) -> Decimal:
    """x rounded up to `places` decimals, exactly.

    >>> ceil_places(Fraction(3004, 1000), 2), ceil_places(Fraction(3, 1), 2), ceil_places(Decimal("0.0001"), 3)
    (Decimal('3.01'), Decimal('3.00'), Decimal('0.001'))
    """
    scaled = math.ceil(Fraction(x) * 10**places)
    with localcontext() as context:  # every digit kept: odds e^loss of a large total pass 28 digits
        context.prec = max(context.prec, len(str(abs(scaled))) + 1)
        return Decimal(scaled).scaleb(-places).quantize(Decimal(1).scaleb(-places))


def _up(x: Decimal) -> Decimal:
    """An upper bound of the true value of a 60-digit result x (x > 0)."""
    return x + abs(x) * MARGIN


@dataclass(frozen=True)
class Loss:
    """A privacy loss ln(ratio) + rational, with integers only: e^loss = ratio * e^rational."""

    ratio: Fraction = Fraction(1)
    rational: Fraction = Fraction(0)

    def __add__(self, other: Loss) -> Loss:
        return Loss(self.ratio * other.ratio, self.rational + other.rational)

    def epsilon_up(self, places: int = 3) -> Decimal:
        """The loss rounded up to `places` decimals."""
        if self.ratio == 1:
            return ceil_places(self.rational, places)
        with localcontext() as context:
            context.prec = PRECISION
            log = Decimal(self.ratio.numerator).ln() - Decimal(self.ratio.denominator).ln()
            return ceil_places(_up(log) + _up(Decimal(self.rational.numerator) / self.rational.denominator)
                               if self.rational else _up(log), places)

    def odds_upper(self) -> Fraction | Decimal:
        """e^loss exactly (a ratio of integers) or an upper bound within 1e-44 of it."""
        if not self.rational:
            return self.ratio
        with localcontext() as context:
            context.prec = PRECISION
            exp = _up(_up(Decimal(self.rational.numerator) / self.rational.denominator).exp())
            return _up(exp * self.ratio.numerator / self.ratio.denominator)

    def odds_up(self, places: int = 2) -> Decimal:
        """e^loss (the most a report changes anyone's odds) rounded up to `places` decimals."""
        return ceil_places(self.odds_upper(), places)

    def guess_up(self, places: int = 0) -> Decimal:
        """The best guess from one report, e^loss / (1 + e^loss), in percent rounded up."""
        odds = Fraction(self.odds_upper())
        return ceil_places(100 * odds / (1 + odds), places)


def loss_of(sampler: dict[str, Any]) -> Loss:
    """The loss of a published sampler (its mechanism's `sampler_loss`: as `sampler_epsilon`, exactly); a
    direct question has none (ValueError): it is not randomized."""
    return Loss(*registry.sampler_loss(sampler))


def total_loss(samplers: Iterable[dict[str, Any]]) -> Loss:
    """The loss of the randomized samplers together (sequential composition); direct ones are skipped."""
    return sum((loss_of(s) for s in samplers if registry.by_sampler(s).randomized), Loss())

"""Numeric questions on a grid: the true value x is lo + i * step, i in [0, steps]; the browser
randomizes the grid index i. What the 1-bit mean (`ldp.mechanisms.onebit`) and discrete Laplace
(`ldp.mechanisms.dlaplace`) share: the exact grid, its parameters, and the check of true indexes.

lo < hi and step > 0 are decimals, taken as text, int or Decimal but never as float (a float
such as 0.1 is not the decimal the researcher typed); (hi - lo) / step must be a whole number of
steps between 1 and STEPS_MAX.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..stats.estimates import MeanEstimate
from .base import IntArray, Mechanism, as_int_array, is_int, settle

STEPS_MAX = 10**6
DecimalLike = Decimal | str | int  # what lo, hi and step may be given as (stored as Decimal)


def decimal(value: object, name: str) -> Decimal:
    """A finite decimal from text, an int or a Decimal; TypeError for floats and other types.

    >>> decimal("0.50", "step"), decimal(3, "lo")
    (Decimal('0.50'), Decimal('3'))
    """
    if isinstance(value, bool) or not isinstance(value, (str, int, np.integer, Decimal)):
        raise TypeError(f"{name} must be a decimal given as text, an integer or a Decimal (not a float, "
                        f"which is not exact), got {value!r}")
    try:
        text_or_int = value.strip() if isinstance(value, str) else value if isinstance(value, Decimal) else int(value)
        number = Decimal(text_or_int)
    except InvalidOperation:
        raise ValueError(f"{name} must be a decimal number, got {value!r}") from None
    if not number.is_finite():
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def decimal_text(number: Decimal) -> str:
    """Plain decimal text without exponent or trailing zeros: "0.5", "100", "-2.25".

    >>> decimal_text(Decimal("1E+2")), decimal_text(Decimal("0.50")), decimal_text(Decimal("-0"))
    ('100', '0.5', '0')
    """
    return "0" if number == 0 else format(number.normalize(), "f")


def check_grid(lo: object, hi: object, step: object) -> tuple[Decimal, Decimal, Decimal, int]:
    """(lo, hi, step, steps) checked: lo < hi, step > 0, steps = (hi - lo) / step whole, in [1, STEPS_MAX].

    >>> check_grid("0", "10", "0.5")
    (Decimal('0'), Decimal('10'), Decimal('0.5'), 20)
    """
    low, high, width = decimal(lo, "lo"), decimal(hi, "hi"), decimal(step, "step")
    if not low < high:
        raise ValueError(f"lo must be below hi, got lo = {low}, hi = {high}")
    if not width > 0:
        raise ValueError(f"step must be positive, got {width}")
    steps = (Fraction(high) - Fraction(low)) / Fraction(width)
    if steps.denominator != 1:
        raise ValueError(f"(hi - lo) / step must be a whole number of steps, got {float(steps):.6g}")
    if not 1 <= steps <= STEPS_MAX:
        raise ValueError(f"(hi - lo) / step must lie in [1, {STEPS_MAX}], got {steps}")
    return low, high, width, int(steps)


class GridMechanism(Mechanism):
    """A numeric question's mechanism: subclasses are frozen dataclasses (init=False) with these fields,
    built by this constructor, which takes lo, hi and step as text, int or Decimal and stores Decimals."""

    estimates_mean: ClassVar[bool] = True
    keys: ClassVar[frozenset[str]] = frozenset({"epsilon", "lo", "hi", "step"})
    epsilon: float
    lo: Decimal
    hi: Decimal
    step: Decimal
    steps: int

    def __init__(self, epsilon: float, lo: DecimalLike, hi: DecimalLike, step: DecimalLike) -> None:
        settle(self, epsilon=epsilon, lo=lo, hi=hi, step=step)
        self.__post_init__()

    def __post_init__(self) -> None:
        raise NotImplementedError

    @property
    def width(self) -> float:
        """hi - lo, the range of the question in its units."""
        return float(self.hi - self.lo)

    def value(self, index: int) -> Decimal:
        """The grid value lo + index * step, exactly.

        >>> from ldp import OneBitMean
        >>> OneBitMean(1.0, "-1", "1", "0.25").value(3)
        Decimal('-0.25')
        """
        if not (is_int(index) and 0 <= index <= self.steps):
            raise ValueError(f"a grid index must be an integer in [0, {self.steps}], got {index!r}")
        return self.lo + int(index) * self.step

    def index(self, value: object) -> int:
        """The grid index of a value on the grid (text, int or Decimal); ValueError if it is not on it.

        >>> from ldp import OneBitMean
        >>> OneBitMean(1.0, "-1", "1", "0.25").index("0.5")
        6
        """
        position = (Fraction(decimal(value, "value")) - Fraction(self.lo)) / Fraction(self.step)
        if position.denominator != 1 or not 0 <= position <= self.steps:
            raise ValueError(f"{value!r} is not on the grid {self.lo}, {self.lo + self.step}, ..., {self.hi}")
        return int(position)

    def grid_parameters(self) -> dict[str, Any]:
        return {"lo": decimal_text(self.lo), "hi": decimal_text(self.hi), "step": decimal_text(self.step)}

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.name, "epsilon": self.epsilon, **self.grid_parameters()}

    @property
    def effective_epsilon(self) -> float:
        # Exactly <= epsilon (checked on the integers); min() keeps a float log's last ulp from showing more.
        return min(super().effective_epsilon, self.epsilon)

    def _indexes(self, values: npt.ArrayLike) -> IntArray:
        array = np.asarray(values)
        if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
            raise ValueError("true values must be a flat array of integer grid indexes")
        if array.size and (array.min() < 0 or array.max() > self.steps):
            raise ValueError(f"true grid indexes must lie in [0, {self.steps}]")
        return array.astype(np.int64, copy=False)

    def histogram(self, reports: npt.ArrayLike) -> tuple[IntArray, IntArray]:
        """(distinct stored values, how often each occurs) of `randomize`'s reports: what
        GROUP BY value gives, and what `estimate_mean` reads."""
        stored = self.encode_many(reports)
        if stored.size == 0:
            return stored, stored.copy()
        low, high = int(stored.min()), int(stored.max())
        if high - low <= 4 * stored.size:  # a counting pass is faster than sorting
            counts = np.bincount(stored - low, minlength=high - low + 1)
            values = np.flatnonzero(counts)
            return (values + low).astype(np.int64), counts[values].astype(np.int64)
        values, counts = np.unique(stored, return_counts=True)
        return values.astype(np.int64), counts.astype(np.int64)

    def report_variance(self, index: int) -> float:
        """Variance of one report's contribution to the mean estimate, in units squared, given its true index."""
        raise NotImplementedError

    def worst_report_variance(self) -> float:
        """The largest `report_variance` over the grid: the 1-bit mean's is at the index nearest N / 2
        (lambda (1 - lambda) peaks at lambda = 1/2; p + q = 1 makes i and N - i alike); Laplace's is constant."""
        return max(self.report_variance(self.steps // 2), self.report_variance((self.steps + 1) // 2))

    def worst_mean_variance(self) -> float:
        """The largest variance per report of the mean estimate when the respondents are a random sample,
        over every distribution of true values (what planning a mean's sample size reads), in units squared."""
        raise NotImplementedError

    def report_values(self, reports: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Unbiased per-report values in the question's units, E[v | true value] = the true value, from reports
        as sent (what a linear model and a weighted mean average)."""
        raise NotImplementedError

    def report_sum(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> float:
        """The sum of the reports as sent, from the histogram of stored values (what a confidence sequence reads)."""
        raise NotImplementedError


    def estimate_mean(self, values: npt.ArrayLike, counts: npt.ArrayLike, confidence: float = 0.95) -> MeanEstimate:
        raise NotImplementedError

    def _histogram_arrays(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> tuple[IntArray, IntArray, int]:
        values, counts = as_int_array(values), as_int_array(counts)
        if values.size != counts.size:
            raise ValueError("values and counts must have the same length")
        if counts.size and counts.min() < 0:
            raise ValueError("counts must be non-negative")
        return values, counts, int(counts.sum())

    def _no_reports(self, confidence: float) -> MeanEstimate:
        return MeanEstimate(math.nan, math.nan, float(self.lo), float(self.hi), confidence, 0)

    def _clipped(self, mean: float, std_error: float, low: float, high: float, confidence: float,
                 n: int) -> MeanEstimate:
        lo, hi = float(self.lo), float(self.hi)
        return MeanEstimate(mean, std_error, min(max(low, lo), hi), min(max(high, lo), hi), confidence, n)

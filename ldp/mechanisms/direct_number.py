"""A numeric question asked directly: the value is sent as given (not randomized), for covariates such as
age in years or household size that a later analysis uses as numbers.

The value x is on the grid lo, lo + step, ..., hi (`ldp.mechanisms.grid`); the browser sends its grid index
i = (x - lo) / step in [0, steps] as it is, and that index is stored. The channel is the identity on the
steps + 1 grid values: the sampler is the direct question's, {"kind": "direct", "k": steps + 1} (the browser
draws no random word, and its privacy loss is infinite: outside the survey's budget, as `ldp.Direct`).

Estimate: the exact mean of the answers, lo + step * (sum c_i i) / n, with the sample variance
s^2 = (n sum c_i i^2 - (sum c_i i)^2) / (n (n - 1)) computed in integers, standard error step * s / sqrt(n)
and a Student t interval with n - 1 degrees of freedom (from the histogram of stored indexes, what GROUP BY
value gives). With one answer the standard error is unknown (NaN) and the interval is the range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..stats.estimates import Estimate, MeanEstimate
from ..stats.intervals import check_confidence, t_value
from .base import IntArray, ReportError, Shape, as_int_array, is_int, settle
from .grid import DecimalLike, GridMechanism, check_grid
from .index import Direct


@dataclass(frozen=True, init=False)
class DirectNumber(GridMechanism):
    """A number on lo..hi by step, sent as given (see the module docstring).

    >>> m = DirectNumber("0", "10", "1")
    >>> m.sampler(), m.effective_epsilon, m.randomized, m.encode(7), m.value(7)
    ({'kind': 'direct', 'k': 11}, inf, False, 7, Decimal('7'))
    >>> e = m.estimate_mean([2, 4], [1, 1])
    >>> e.mean, round(e.std_error, 6), round(e.ci_low, 4), round(e.ci_high, 4)
    (3.0, 1.0, 0.0, 10.0)
    """

    name: ClassVar[str] = "direct_number"
    label: ClassVar[str] = "direct number (sent as given)"
    encoding: ClassVar[str] = "integer"
    shape: ClassVar[Shape] = Shape.NUMBER
    parameter: ClassVar[str | None] = None
    randomized: ClassVar[bool] = False
    sampler_kind: ClassVar[str] = "direct"  # the identity on steps + 1 values: `Direct`'s privacy map reads it
    keys: ClassVar[frozenset[str]] = frozenset({"lo", "hi", "step"})
    mean_interval: ClassVar[str | None] = "t"
    codebook_formula: ClassVar[str | None] = (
        "a number sent as given (not randomized): the report i is the grid index of the answer, the value "
        "lo + step * i; mean_hat = lo + step * mean(i), the exact mean of the answers, standard error step * s / "
        "sqrt(n) with s^2 the sample variance of i, and a Student t interval with n - 1 degrees of freedom; its "
        "\"bins\" (each with its lower edge) are those break-downs count it in")
    sampler_rule: ClassVar[str] = ("No randomization: the browser sends the answer's grid index i in [0, steps] "
                                   "as given (k = steps + 1 values); the value is lo + i * step.")
    lo: Decimal
    hi: Decimal
    step: Decimal
    k: int = field(init=False)
    steps: int = field(init=False, repr=False)

    def __init__(self, lo: DecimalLike, hi: DecimalLike, step: DecimalLike) -> None:
        settle(self, lo=lo, hi=hi, step=step)
        self.__post_init__()

    def __post_init__(self) -> None:
        lo, hi, step, steps = check_grid(self.lo, self.hi, self.step)
        settle(self, lo=lo, hi=hi, step=step, steps=steps, k=steps + 1)

    @property
    def epsilon(self) -> float:  # type: ignore[override]
        return math.inf

    @property
    def effective_epsilon(self) -> float:
        return math.inf

    @property
    def p(self) -> float:
        return 1.0

    @property
    def q_other(self) -> float:
        return 0.0

    # Its privacy map is the direct question's: the identity channel, not randomized.
    sampler_channel = Direct.sampler_channel
    sampler_epsilon = Direct.sampler_epsilon
    sampler_loss = Direct.sampler_loss

    def sampler(self) -> dict[str, Any]:
        return {"kind": self.sampler_kind, "k": self.k}

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.name, **self.grid_parameters()}

    def describe(self) -> dict[str, Any]:
        """The common description (p = 1, q_other = 0: the identity) with the grid and its steps."""
        return {**super().describe(), **self.grid_parameters(), "steps": self.steps}

    # --- reports ---------------------------------------------------------------------------

    def encode(self, report: Any) -> int:
        if not (is_int(report) and 0 <= report <= self.steps):
            raise ReportError(f"must be a grid index, an integer from 0 to {self.steps} (the value lo + index * step)")
        return int(report)

    def decode(self, value: int) -> int:
        return int(value)

    def slots(self, value: int) -> tuple[int, ...]:
        """None: only n is counted; the mean reads the histogram of stored values."""
        return ()

    def encode_many(self, reports: npt.ArrayLike) -> IntArray:
        return as_int_array(reports)

    def tally(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> IntArray:
        """All zeros (no value has slots), after checking the values."""
        self._check_stored(as_int_array(values))
        return np.zeros(self.k, dtype=np.int64)

    def counts(self, reports: npt.ArrayLike) -> IntArray:
        raise TypeError("a direct number is not counted per option: use histogram() and estimate_mean()")

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> IntArray:
        """The identity: the reports are the true grid indexes (`rng` is not used)."""
        return self._indexes(values).copy()

    # --- estimates -------------------------------------------------------------------------

    def estimate(self, counts: npt.ArrayLike, n: int, **options: Any) -> Estimate:
        raise TypeError("a direct number estimates a mean: use estimate_mean()")

    def estimate_mean(self, values: npt.ArrayLike, counts: npt.ArrayLike, confidence: float = 0.95) -> MeanEstimate:
        """The exact mean in units and its Student t interval (n - 1 degrees of freedom) from the histogram
        of stored grid indexes (values and how often each occurred).

        >>> m = DirectNumber("18", "99", "1")
        >>> e = m.estimate_mean([2, 12, 22], [1, 1, 1])
        >>> e.mean, round(e.std_error, 6), round(e.ci_high - e.mean, 4)
        (30.0, 5.773503, 24.8414)
        """
        check_confidence(confidence)
        values, counts, n = self._histogram_arrays(values, counts)
        self._check_stored(values)
        if n == 0:
            return self._no_reports(confidence)
        total = sum(int(c) * int(v) for v, c in zip(values.tolist(), counts.tolist(), strict=True))
        squares = sum(int(c) * int(v) ** 2 for v, c in zip(values.tolist(), counts.tolist(), strict=True))
        center = float(Fraction(self.lo) + Fraction(self.step) * Fraction(total, n))
        if n == 1:
            return MeanEstimate(center, math.nan, float(self.lo), float(self.hi), confidence, n)
        variance = Fraction(n * squares - total * total, n * (n - 1))  # of the indexes, exactly
        std_error = float(self.step) * math.sqrt(variance / n)
        half = t_value(confidence, n - 1) * std_error
        return self._clipped(center, std_error, center - half, center + half, confidence, n)

    def report_variance(self, index: int) -> float:
        """0: a direct answer adds no noise (the spread of the true values is in `worst_mean_variance`)."""
        self.value(index)  # checks the index
        return 0.0

    def worst_mean_variance(self) -> float:
        """(hi - lo)^2 / 4: the spread of the true values alone (a direct answer adds no noise)."""
        return self.width**2 / 4.0 + self.worst_report_variance()

    def report_values(self, reports: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The answer in units, v = lo + step i, i the grid index sent as given."""
        return np.asarray(float(self.lo) + float(self.step) * np.asarray(reports, dtype=float), dtype=float)

    def report_sum(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> float:
        """The sum of the grid indexes sent (stored as sent): sum_v c_v v."""
        return float(as_int_array(counts) @ as_int_array(values))

    def _check_stored(self, values: IntArray) -> None:
        if values.size and (values.min() < 0 or values.max() > self.steps):
            raise ValueError("reports outside the question's range")

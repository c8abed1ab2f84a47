"""The 1-bit mean (Duchi et al. 2013; Ding et al. 2017, Microsoft's 1BitMean) for a numeric question.

The true value x = lo + i * step, i in [0, N] (N = steps), is first rounded at random to one of the
ends of the range, by an exact integer draw over the grid steps: U1 uniform in [0, N), bit = [U1 < i],
so P(bit = 1) = i / N = u = (x - lo) / (hi - lo). The bit is then sent through the epsilon bit flip:
U2 uniform in [0, M), M = 2^32, report = bit if U2 < keep, else 1 - bit.

Privacy: P(report = 1 | i) = q + (i / N)(p - q) with p = keep / M, q = 1 - p, which lies in [q, p]
for every i, and so does P(report = 0 | i). The odds of any report under two true values are at most
p / q = keep / (M - keep), attained by i = N against i = 0: epsilon = ln(keep / (M - keep)), with
keep = floor(M e^eps / (1 + e^eps)) corrected exactly as for the bit flip (`sampler_integers.binary_keep`).

Estimate: E[report] = lambda = q + u_bar (p - q), so u_hat = (lambda_hat - q) / (p - q) is unbiased for
the mean of u and mean = lo + (hi - lo) u_hat. Var(report) = lambda (1 - lambda) whether the true values
are fixed or drawn at random, so the interval maps like a yes/no fraction: the Wilson interval of
lambda (continuity-corrected, as everywhere in ldp), mapped affinely and clipped to [lo, hi]; the standard
error is (hi - lo) sqrt(lambda_hat (1 - lambda_hat) / n) / (p - q).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..sequences.fractions import Sequence
from ..sequences.means import onebit_sequence
from ..stats.estimates import Estimate, MeanEstimate
from ..stats.intervals import check_confidence, wilson
from . import sampling as sampler_integers
from .base import IndexReports, IntArray, Shape, as_int_array, check_epsilon, settle
from .grid import GridMechanism, check_grid


@dataclass(frozen=True, init=False)
class OneBitMean(IndexReports, GridMechanism):
    """The 1-bit mean on the grid lo, lo + step, ..., hi (see the module docstring).

    >>> m = OneBitMean(1.0, "0", "10", "1")
    >>> m.sampler()["kind"], m.k, m.steps, m.effective_epsilon <= 1.0
    ('onebit', 2, 10, True)
    >>> reports = m.randomize(np.full(20_000, 7), np.random.default_rng(1))
    >>> estimate = m.estimate_mean(*m.histogram(reports))
    >>> estimate.ci_low < 7 < estimate.ci_high, round(estimate.std_error, 2)
    (True, 0.08)
    """

    name: ClassVar[str] = "onebit"
    report_rule: ClassVar[str] = "the bit 0 or 1"
    label: ClassVar[str] = "1-bit mean"
    encoding: ClassVar[str] = "index"
    keeps_bits: ClassVar[bool] = True
    shape: ClassVar[Shape] = Shape.MEAN_BIT
    mean_interval: ClassVar[str | None] = "wilson"
    has_mean_sequence: ClassVar[bool] = True
    sampler_kind: ClassVar[str] = "onebit"
    codebook_formula: ClassVar[str | None] = (
        "1-bit mean: c_1 = reports of 1 of n; mean_hat = lo + (hi - lo) (c_1 / n - q_other) / (p - q_other), "
        "standard error (hi - lo) sqrt(lambda (1 - lambda) / n) / (p - q_other) with lambda = c_1 / n; the "
        "interval is the Wilson interval of lambda mapped the same way, clipped to [lo, hi]")
    sampler_rule: ClassVar[str] = (
        "The true grid index i in [0, steps]: U1 uniform in [0, steps), bit = 1 if U1 < i else 0; "
        "U2 uniform in [0, modulus), report = bit if U2 < keep else 1 - bit. "
        "p = keep / modulus, q_other = 1 - p; the value is lo + i * step.")
    epsilon: float
    lo: Decimal
    hi: Decimal
    step: Decimal
    k: int = field(default=2, init=False)
    steps: int = field(init=False, repr=False)
    keep: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        eps = check_epsilon(self.epsilon)
        lo, hi, step, steps = check_grid(self.lo, self.hi, self.step)
        keep, modulus = sampler_integers.binary_keep(eps)
        settle(self, epsilon=eps, lo=lo, hi=hi, step=step, steps=steps, keep=keep, modulus=modulus)

    @property
    def p(self) -> float:
        return self.keep / self.modulus

    @property
    def q_other(self) -> float:
        return (self.modulus - self.keep) / self.modulus

    @classmethod
    def sampler_channel(cls, sampler: dict[str, Any]) -> tuple[int, int, int]:
        return sampler["keep"], sampler["modulus"] - sampler["keep"], sampler["modulus"]

    @classmethod
    def sampler_epsilon(cls, sampler: dict[str, Any]) -> float:
        """ln(keep / (M - keep)): the odds of a report under the grid's two ends."""
        return math.log(sampler["keep"] / (sampler["modulus"] - sampler["keep"]))

    @classmethod
    def sampler_loss(cls, sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
        return Fraction(sampler["keep"], sampler["modulus"] - sampler["keep"]), Fraction(0)

    def sampler(self) -> dict[str, Any]:
        return {"kind": self.sampler_kind, "steps": self.steps, "modulus": self.modulus, "keep": self.keep,
                **self.grid_parameters()}

    def describe(self) -> dict[str, Any]:
        """`Mechanism.describe` and the grid: lo, hi, step (text) and steps."""
        return {**super().describe(), **self.grid_parameters(), "steps": self.steps}

    # --- reports (the index codec of `IndexReports`) --------------------------------------

    def counts(self, reports: npt.ArrayLike) -> IntArray:
        return np.bincount(np.asarray(reports, dtype=np.int64).reshape(-1), minlength=2).astype(np.int64)

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
        """One bit per true grid index, by the browser's rule with numpy's integers."""
        index = self._indexes(values)
        bit = rng.integers(0, self.steps, size=index.size, dtype=np.int64) < index
        flip = rng.integers(0, self.modulus, size=index.size, dtype=np.uint32 if self.modulus <= 2**32 else np.int64)
        return np.asarray(bit ^ (flip >= self.keep), dtype=np.uint8)

    # --- estimates -------------------------------------------------------------------------

    def estimate(self, counts: npt.ArrayLike, n: int, **options: Any) -> Estimate:
        """The debiased fraction of rounded bits equal to 0 and 1 (the mean's u and 1 - u)."""
        if int(np.sum(counts)) != n:
            raise ValueError("the counts of 0 and 1 reports must add up to n")
        return super().estimate(counts, n, **options)

    def estimate_mean(self, values: npt.ArrayLike, counts: npt.ArrayLike, confidence: float = 0.95) -> MeanEstimate:
        """The mean in units from the histogram of stored reports (values 0 and 1, and their counts).

        >>> m = OneBitMean(math.log(3), "0", "4", "1")
        >>> e = m.estimate_mean([0, 1], [250, 750])
        >>> round(e.mean, 9), round(e.std_error, 4)
        (4.0, 0.1095)
        """
        check_confidence(confidence)
        values, counts, n = self._histogram_arrays(values, counts)
        if values.size and (values.min() < 0 or values.max() > 1):
            raise ValueError("1-bit mean reports are 0 or 1")
        if n == 0:
            return self._no_reports(confidence)
        ones = int(counts[values == 1].sum())
        lam = ones / n
        gap = self.p - self.q_other
        mean = float(self.lo) + self.width * (lam - self.q_other) / gap
        std_error = self.width * math.sqrt(lam * (1.0 - lam) / n) / gap
        low, high = wilson(ones, n, confidence)
        to_units = [float(self.lo) + self.width * (b - self.q_other) / gap for b in (low, high)]
        return self._clipped(mean, std_error, to_units[0], to_units[1], confidence, n)

    def report_variance(self, index: int) -> float:
        """(hi - lo)^2 lambda_i (1 - lambda_i) / (p - q)^2, lambda_i = q + (i / N)(p - q).

        >>> round(OneBitMean(math.log(3), "0", "1", "1").report_variance(0), 6)
        0.75
        """
        self.value(index)  # checks the index
        lam = self.q_other + (index / self.steps) * (self.p - self.q_other)
        return float(self.width**2 * lam * (1.0 - lam) / (self.p - self.q_other) ** 2)

    def worst_mean_variance(self) -> float:
        """(hi - lo)^2 / (4 (p - q)^2): the report is a Bernoulli(lambda) draw whatever the distribution of the
        true values, and lambda (1 - lambda) is largest at lambda = 1/2.

        >>> round(OneBitMean(1.0, "0", "1", "1").worst_mean_variance(), 4)
        1.1707
        """
        return self.width**2 / (4.0 * (self.p - self.q_other) ** 2)

    def report_values(self, reports: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """v = lo + (hi - lo) (y - q) / (p - q), y the reported bit: E[y] = q + u (p - q).

        >>> OneBitMean(1.0, "0", "10", "1").report_values([0, 1]).round(4).tolist()
        [-5.8198, 15.8198]
        """
        r = np.asarray(reports, dtype=float)
        if not np.isin(r, (0.0, 1.0)).all():
            raise ValueError("1-bit mean reports are 0 or 1")
        gap = self.p - self.q_other
        return np.asarray(float(self.lo) + self.width * (r - self.q_other) / gap, dtype=float)

    def report_sum(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> float:
        """The count of reports equal to 1 (stored as sent): sum_v c_v v over the values 0 and 1."""
        return float(as_int_array(counts) @ as_int_array(values))

    def mean_sequence(self, n: npt.ArrayLike, sums: npt.ArrayLike, *, confidence: float = 0.95,
                      planned: int | None = None) -> Sequence:
        """The bit's sequence (`ldp.sequences.fractions.binary_sequence`) mapped to units: lo + (hi - lo) u,
        from the count of 1s among the first n (`ldp.sequences.means.onebit_sequence`)."""
        return onebit_sequence(self, n, sums, confidence=confidence, planned=planned)

"""Discrete Laplace noise on a numeric question's grid index (the geometric mechanism).

The browser reports r = i + Z for the true grid index i in [0, N] (N = steps), with Z two-sided
geometric: P(Z = z) = (1 - a) / (1 + a) a^|z|, a = exp(-s / t), from the published integers
t = scale_num and s = scale_den (both <= 2^32), then clamps r to [-R, N + R] (R = bound).
It samples Z exactly with integers (Canonne, Kamath & Steinke 2020, Algorithm 2), never as rounded
floating-point Laplace noise, whose gaps leak the true value (Mironov 2012). `randomize` here is for
simulation only: numpy's geometric draws (Z = G1 - G2, two i.i.d. geometric counts) have this law.

Privacy: for true indexes i, i' and any report r, P(r | i) / P(r | i') = a^(|r - i| - |r - i'|)
<= a^(-|i - i'|) <= e^(N s / t) (the clamped ends are sums of such terms with the same ratio, and a
clamp is post-processing in any case). s / t is the largest fraction <= eps / N with s, t <= 2^32
(`sampler_integers.fraction_below`), so epsilon = N s / t <= eps, compared exactly as rationals (a float is one).

R is the smallest bound with E[(|Z| - R)+] = 2 a^(R+1) / (1 - a^2) < 2^-60: then P(|Z| > R) < 2^-60 and
the clamp moves the expected report by less than 2^-60 steps.

Estimate: the mean of r is unbiased for the mean true index (E[Z] = 0), Var(Z) = 2a / (1 - a)^2 =
1 / (2 sinh^2(s / 2t)). The standard error comes from the sample variance of r, floored at Var(Z)
(no report varies less than its noise), with a normal interval; all mapped to units as lo + step * r
and the interval clipped to [lo, hi].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..sequences.fractions import Sequence
from ..sequences.means import laplace_sequence
from ..stats.estimates import Estimate, MeanEstimate
from ..stats.intervals import check_confidence, z_value
from . import sampling as sampler_integers
from .base import IntArray, ReportError, Shape, as_int_array, check_epsilon, is_int, settle
from .grid import GridMechanism, check_grid


def noise_scale(epsilon: float, steps: int) -> tuple[int, int]:
    """(t, s): the largest s / t <= epsilon / steps with s, t <= 2^32; steps * s / t <= epsilon exactly.

    >>> noise_scale(0.5, 10)
    (20, 1)
    """
    s, t = sampler_integers.fraction_below(Fraction(epsilon) / steps, sampler_integers.WORD, sampler_integers.WORD)
    if Fraction(steps * s, t) > Fraction(epsilon):  # fraction_below guarantees it; never trust a float here
        raise AssertionError("noise scale above epsilon")
    return t, s


def clamp_bound(t: int, s: int) -> int:
    """The smallest R >= 0 with 2 a^(R+1) / (1 - a^2) < 2^-60, a = exp(-s / t) (60-digit decimals).

    >>> clamp_bound(1, 1), clamp_bound(20, 1)
    (42, 892)
    """
    with localcontext() as context:
        context.prec = 60
        x = Decimal(s) / Decimal(t)
        a = (-x).exp()
        limit = Decimal(2) ** -60 * (1 - a * a) / 2

        def fits(bound: int) -> bool:
            return (-(x * (bound + 1))).exp() < limit

        bound = max(0, math.ceil(-limit.ln() / x) - 1)
        while not fits(bound):
            bound += 1
        while bound > 0 and fits(bound - 1):
            bound -= 1
        return bound


@dataclass(frozen=True, init=False)
class DiscreteLaplace(GridMechanism):
    """Discrete Laplace noise on the grid lo, lo + step, ..., hi (see the module docstring).

    >>> m = DiscreteLaplace(1.0, "0", "10", "1")
    >>> m.scale_num, m.scale_den, m.effective_epsilon, m.bound
    (10, 1, 1.0, 439)
    >>> reports = m.randomize(np.full(20_000, 7), np.random.default_rng(1))
    >>> estimate = m.estimate_mean(*m.histogram(reports))
    >>> estimate.ci_low < 7 < estimate.ci_high, round(estimate.std_error, 2)
    (True, 0.1)
    """

    name: ClassVar[str] = "dlaplace"
    label: ClassVar[str] = "discrete Laplace"
    encoding: ClassVar[str] = "integer"
    shape: ClassVar[Shape] = Shape.LAPLACE
    mean_interval: ClassVar[str | None] = "normal"
    has_mean_sequence: ClassVar[bool] = True
    sampler_kind: ClassVar[str] = "dlaplace"
    codebook_formula: ClassVar[str | None] = (
        "discrete Laplace: a report r (stored as r + bound) is the grid index plus noise Z with E[Z] = 0, "
        "Var(Z) = noise_variance; mean_hat = lo + step * mean(r), standard error step * sqrt(max(s^2, "
        "noise_variance) / n) with s^2 the sample variance of r; a normal interval, clipped to [lo, hi]")
    sampler_rule: ClassVar[str] = (
        "The true grid index i in [0, steps]: report r = i + Z, Z two-sided geometric with "
        "P(Z = z) proportional to exp(-|z| scale_den / scale_num), sampled exactly with integers "
        "(Canonne, Kamath & Steinke 2020, Algorithm 2), then clamped to [-bound, steps + bound]; "
        "stored as r + bound. The value is lo + i * step.")
    epsilon: float
    lo: Decimal
    hi: Decimal
    step: Decimal
    k: int = field(init=False)
    steps: int = field(init=False, repr=False)
    scale_num: int = field(init=False, repr=False)
    scale_den: int = field(init=False, repr=False)
    bound: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        eps = check_epsilon(self.epsilon)
        lo, hi, step, steps = check_grid(self.lo, self.hi, self.step)
        t, s = noise_scale(eps, steps)
        settle(self, epsilon=eps, lo=lo, hi=hi, step=step, steps=steps, k=steps + 1, scale_num=t, scale_den=s,
               bound=clamp_bound(t, s))

    @property
    def ratio(self) -> float:
        """a = exp(-scale_den / scale_num): P(Z = z + 1) / P(Z = z) for z >= 0."""
        return math.exp(-self.scale_den / self.scale_num)

    @property
    def noise_variance(self) -> float:
        """Var(Z) = 2a / (1 - a)^2 = 1 / (2 sinh^2(s / 2t)), in grid steps squared."""
        return 1.0 / (2.0 * math.sinh(self.scale_den / (2.0 * self.scale_num)) ** 2)

    @classmethod
    def sampler_channel(cls, sampler: dict[str, Any]) -> tuple[int, int, int]:
        raise ValueError("a discrete Laplace report is an integer: it has no p and q_other")

    @classmethod
    def sampler_epsilon(cls, sampler: dict[str, Any]) -> float:
        """steps * scale_den / scale_num, a rational itself.

        >>> DiscreteLaplace.sampler_epsilon({"kind": "dlaplace", "steps": 10, "scale_num": 20, "scale_den": 1})
        0.5
        """
        return float(cls.sampler_loss(sampler)[1])

    @classmethod
    def sampler_loss(cls, sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
        return Fraction(1), Fraction(sampler["steps"] * sampler["scale_den"], sampler["scale_num"])

    def sampler(self) -> dict[str, Any]:
        return {"kind": self.sampler_kind, "steps": self.steps, "scale_num": self.scale_num,
                "scale_den": self.scale_den, "bound": self.bound, **self.grid_parameters()}

    def describe(self) -> dict[str, Any]:
        """The common description without p and q_other (None: a report is an integer), with the grid,
        the noise scale t / s (exact and as a float) and the noise variance in steps squared."""
        return {
            "name": self.name, "label": self.label, "parameters": self.to_dict(),
            "effective_epsilon": self.effective_epsilon, "q_equivalent": None,
            "p": None, "q_other": None, "p_exact": None, "q_other_exact": None,
            "sampler": self.sampler(), "sampler_rule": self.sampler_rule, "encoding": self.encoding,
            **self.grid_parameters(), "steps": self.steps, "scale_num": self.scale_num, "scale_den": self.scale_den,
            "scale": self.scale_num / self.scale_den, "scale_exact": f"{self.scale_num}/{self.scale_den}",
            "bound": self.bound, "noise_variance": self.noise_variance,
        }

    # --- reports ---------------------------------------------------------------------------

    def encode(self, report: Any) -> int:
        if not (is_int(report) and -self.bound <= report <= self.steps + self.bound):
            raise ReportError(f"must be an integer from {-self.bound} to {self.steps + self.bound}")
        return int(report) + self.bound

    def decode(self, value: int) -> int:
        return int(value) - self.bound

    def slots(self, value: int) -> tuple[int, ...]:
        """None: only n is counted; the estimate reads the histogram of stored values."""
        return ()

    def encode_many(self, reports: npt.ArrayLike) -> IntArray:
        return as_int_array(reports) + self.bound

    def tally(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> IntArray:
        """All zeros (no value has slots), after checking the values."""
        values = as_int_array(values)
        if values.size and (values.min() < 0 or values.max() > self.steps + 2 * self.bound):
            raise ValueError("reports outside the question's range")
        return np.zeros(self.k, dtype=np.int64)

    def counts(self, reports: npt.ArrayLike) -> IntArray:
        raise TypeError("discrete Laplace reports are not counted per option: use histogram() and estimate_mean()")

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> IntArray:
        """r = i + G1 - G2 clamped to [-R, N + R]; G1, G2 geometric (numpy, for simulation)."""
        index = self._indexes(values)
        success = -math.expm1(-self.scale_den / self.scale_num)  # 1 - a
        report = rng.geometric(success, size=index.size).astype(np.int64, copy=False)
        report -= rng.geometric(success, size=index.size)
        report += index
        return np.clip(report, -self.bound, self.steps + self.bound, out=report)

    # --- estimates -------------------------------------------------------------------------

    def estimate(self, counts: npt.ArrayLike, n: int, **options: Any) -> Estimate:
        raise TypeError("discrete Laplace estimates a mean: use estimate_mean()")

    def estimate_mean(self, values: npt.ArrayLike, counts: npt.ArrayLike, confidence: float = 0.95) -> MeanEstimate:
        """The mean in units from the histogram of stored reports (values r + R and their counts).

        >>> m = DiscreteLaplace(1.0, "0", "10", "1")
        >>> e = m.estimate_mean([m.encode(3), m.encode(5)], [50, 50])
        >>> e.mean, round(e.std_error, 4) == round(math.sqrt(m.noise_variance / 100), 4)
        (4.0, True)
        """
        check_confidence(confidence)
        values, counts, n = self._histogram_arrays(values, counts)
        if values.size and (values.min() < 0 or values.max() > self.steps + 2 * self.bound):
            raise ValueError("reports outside the question's range")
        if n == 0:
            return self._no_reports(confidence)
        reports = (values - self.bound).astype(float)
        mean = float(counts @ reports) / n
        spread = float(counts @ (reports - mean) ** 2) / (n - 1) if n > 1 else self.noise_variance + self.steps**2 / 4.0
        variance = max(spread, self.noise_variance)
        step = float(self.step)
        std_error = step * math.sqrt(variance / n)
        center = float(self.lo) + step * mean
        half = z_value(confidence) * std_error
        return self._clipped(center, std_error, center - half, center + half, confidence, n)

    def report_variance(self, index: int) -> float:
        """step^2 Var(Z), whatever the true index."""
        self.value(index)  # checks the index
        return float(self.step) ** 2 * self.noise_variance

    def worst_mean_variance(self) -> float:
        """(hi - lo)^2 / 4 + step^2 Var(Z): the spread of the true values, Var(x) <= (hi - lo)^2 / 4, plus the noise."""
        return self.width**2 / 4.0 + self.worst_report_variance()

    def report_values(self, reports: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The report itself in units, v = lo + step r: its noise has mean 0.

        >>> DiscreteLaplace(1.0, "0", "10", "2").report_values([-1, 3]).tolist()
        [-2.0, 6.0]
        """
        return np.asarray(float(self.lo) + float(self.step) * np.asarray(reports, dtype=float), dtype=float)

    def report_sum(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> float:
        """The sum of r = stored value - bound: sum_v c_v (v - R)."""
        return float(as_int_array(counts) @ (as_int_array(values) - self.bound))

    def report_range(self) -> tuple[int, int]:
        """[-R, N + R]: the clamp's ends."""
        return -self.bound, self.steps + self.bound

    def mean_sequence(self, n: npt.ArrayLike, sums: npt.ArrayLike, *, confidence: float = 0.95,
                      planned: int | None = None) -> Sequence:
        """The mixture of Laplace-Hoeffding supermartingales over the sum of r (`ldp.sequences.means`), mapped to
        units as lo + step * mu."""
        return laplace_sequence(self, n, sums, confidence=confidence, planned=planned)

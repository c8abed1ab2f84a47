"""Debiased frequency estimates from report counts.

For every mechanism here the expected report rate of option (or bit) j is lambda_j = q + pi_j (p - q), so
pi_hat_j = (lambda_hat_j - q) / (p - q) is unbiased with Var(pi_hat_j) = lambda_j (1 - lambda_j) / (n (p -
q)^2). Intervals for lambda_j (Wilson with continuity correction by default, Clopper-Pearson as `exact`) are
mapped through the same affine map and clipped to [0, 1]; the unclipped bounds are kept too. When a whole
interval lies outside [0, 1] (the report rate's interval outside [q, p], e.g. q-RR q = 0.5 with 30 of 30
reports "no": every report rate below q is impossible under the mechanism) both ends clip to the same edge and
[0, 0] would look certain: such an option is flagged `inconsistent` (the data do not fit the mechanism). At a
count of 0 or n the plug-in standard error sqrt(lambda (1 - lambda) / n) is 0; there the Wilson-centred one,
with lambda~ = (c + z^2 / 2) / (n + z^2) and n + z^2 reports, is used instead (never 0). Post-processing
(clipping, projection onto the simplex) costs no privacy and is labelled; the unbiased estimate is always
kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from .intervals import INTERVALS, check_confidence, z_value


@dataclass(frozen=True)
class Estimate:
    """Per-option estimates for one question; every array has one entry per option."""

    n: int
    counts: tuple[int, ...]
    estimate: tuple[float, ...]
    std_error: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    clipped: tuple[float, ...]
    simplex: tuple[float, ...]
    confidence: float
    interval: str
    simultaneous: bool
    ci_low_unclipped: tuple[float, ...] = ()  # the interval mapped through the affine map, not clipped
    ci_high_unclipped: tuple[float, ...] = ()
    inconsistent: tuple[bool, ...] = ()  # the whole interval lies outside [0, 1]: data that do not fit the mechanism

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "counts": list(self.counts),
            "estimate": list(self.estimate),
            "std_error": list(self.std_error),
            "ci_low": list(self.ci_low),
            "ci_high": list(self.ci_high),
            "clipped": list(self.clipped),
            "simplex": list(self.simplex),
            "confidence": self.confidence,
            "interval": self.interval,
            "simultaneous": self.simultaneous,
            "ci_low_unclipped": list(self.ci_low_unclipped),
            "ci_high_unclipped": list(self.ci_high_unclipped),
            "inconsistent": list(self.inconsistent),
        }


@dataclass(frozen=True)
class MeanEstimate:
    """A mean in the question's units (a numeric question's mean, an ordinal question's mean score):
    the unbiased estimate, its standard error, and a confidence interval clipped to the range the
    mean can take. With no reports the mean and standard error are NaN and the interval is the range.

    >>> MeanEstimate(2.5, 0.25, 2.0, 3.0, 0.95, 100).as_dict()["ci_high"]
    3.0
    """

    mean: float
    std_error: float
    ci_low: float
    ci_high: float
    confidence: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "std_error": self.std_error, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "confidence": self.confidence, "n": self.n}


def debias(counts: npt.ArrayLike, n: int, p: float, q: float, *, confidence: float = 0.95,
           interval: str = "wilson", simultaneous: bool = False) -> Estimate:
    """Estimate pi from counts c_j of reports (GRR) or of 1-bits (unary), out of n reports.

    With `simultaneous`, each interval is at level 1 - (1 - confidence) / k (Bonferroni),
    so all k hold together with probability at least `confidence`.
    """
    raw = np.asarray(counts)
    if raw.dtype.kind not in "iu" and not (raw.size and np.all(np.mod(raw, 1) == 0)):
        raise ValueError("counts must be whole numbers")
    counts = raw.astype(np.int64)
    _check_counts(counts, n)
    check_confidence(confidence)
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {sorted(INTERVALS)}, got {interval!r}")
    k = counts.size
    gap = p - q
    if n == 0:
        nan = (float("nan"),) * k
        return Estimate(0, tuple(int(c) for c in counts), nan, nan, (0.0,) * k, (1.0,) * k,
                        nan, nan, confidence, interval, simultaneous, (0.0,) * k, (1.0,) * k, (False,) * k)
    lam = counts / n
    est = (lam - q) / gap
    level = 1.0 - (1.0 - confidence) / k if simultaneous else confidence
    se = _std_error(counts, n, gap, z_value(level))
    bounds = np.array([INTERVALS[interval](int(c), n, level) for c in counts])
    raw_low, raw_high = (bounds[:, 0] - q) / gap, (bounds[:, 1] - q) / gap
    low = np.clip(raw_low, 0.0, 1.0)
    high = np.clip(raw_high, 0.0, 1.0)
    return Estimate(
        n=n,
        counts=tuple(int(c) for c in counts),
        estimate=_floats(est),
        std_error=_floats(se),
        ci_low=_floats(low),
        ci_high=_floats(high),
        clipped=_floats(np.clip(est, 0.0, 1.0)),
        simplex=_floats(project_to_simplex(est)),
        confidence=confidence,
        interval=interval,
        simultaneous=simultaneous,
        ci_low_unclipped=_floats(raw_low),
        ci_high_unclipped=_floats(raw_high),
        inconsistent=tuple(bool(b) for b in (raw_high < 0.0) | (raw_low > 1.0)),
    )


def _std_error(counts: npt.NDArray[np.int64], n: int, gap: float, z: float) -> npt.NDArray[np.float64]:
    """The plug-in standard error, or at a count of 0 or n (where it is 0) the Wilson-centred one.

    >>> [round(float(s), 4) for s in _std_error(np.array([0, 5, 10]), 10, 1.0, 1.96)]
    [0.0929, 0.1581, 0.0929]
    """
    lam = counts / n
    plug_in = np.sqrt(lam * (1.0 - lam) / n)
    centre = (counts + z * z / 2.0) / (n + z * z)
    wilson = np.sqrt(centre * (1.0 - centre) / (n + z * z))
    edge = (counts == 0) | (counts == n)
    return np.where(edge, wilson, plug_in) / gap


def project_to_simplex(v: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Euclidean projection onto {x >= 0, sum x = 1} (sort-based; Duchi et al. 2008)."""
    v = np.asarray(v, dtype=float)
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    ranks = np.arange(1, v.size + 1)
    rho = np.nonzero(u - cumulative / ranks > 0)[0][-1]
    # np.maximum is typed as returning Any here; v is float64, and so is its maximum with 0.0
    return cast(npt.NDArray[np.float64], np.maximum(v - cumulative[rho] / (rho + 1), 0.0))


def _check_counts(counts: npt.NDArray[np.int64], n: int) -> None:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError("n must be a non-negative integer")
    if counts.ndim != 1 or counts.size < 2:
        raise ValueError("counts must be a flat sequence with one entry per option")
    if (counts < 0).any() or (counts > n).any():
        raise ValueError("each count must lie between 0 and n")


def _floats(a: Iterable[float | np.floating[Any]]) -> tuple[float, ...]:
    return tuple(float(x) for x in a)

"""Weighted estimates: fractions and means from reports under weights (`ldp.weighting.raking.Raked`).

A fraction. Report j (or bit j of a unary report) has E[y_ij] = q + pi_j (p - q), so with the weighted
report fraction lambda_w = sum w_i y_ij / sum w_i,

    pi_w = (lambda_w - q) / (p - q),   SE(pi_w) = sqrt(Var(lambda_w)) / (p - q),

Var(lambda_w) the linearization variance of `Raked.mean` (it accounts for the weights and for the
raking). The interval is the Wilson score interval with continuity correction, as for unweighted
counts, at the option's effective sample size n*_j = lambda_w (1 - lambda_w) / Var(lambda_w) (the n
whose binomial variance equals the weighted one; Kish's (sum w)^2 / sum w^2 where lambda_w is 0 or 1),
mapped through the same affine map and clipped to [0, 1]. The design effect of option j is
Var(lambda_w) / (lambda_w (1 - lambda_w) / n).

A share the raking fixes (the question is itself a margin, or a function of the margins): its residuals
are 0, so its variance is 0 but for rounding (about 1e-33, or exactly 0, as the rounding falls). Below
ROUNDING x lambda_w (1 - lambda_w) the variance is taken as 0, its interval as the estimate alone, the
same every time: the margin's share is known, not estimated.

Grouped rows (`Raked.counts`): one report per row, standing for the row's count of respondents; the figures
are those of the rows written out.

A mean (1-bit mean, discrete Laplace): the weighted mean of the per-report unbiased values
(`ldp.regression.linear.per_report_values`), its linearization standard error and a normal interval,
clipped to the question's range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import Mechanism
from ..stats.estimates import MeanEstimate
from ..stats.intervals import check_confidence, t_value, wilson, z_value
from .raking import Raked

ROUNDING = 1e-20  # a variance this small a part of lambda_w (1 - lambda_w) is rounding (a genuine one: > 1e-8)


@dataclass(frozen=True)
class WeightedEstimate:
    """Per-option weighted estimates of one question; `effective_n` is Kish's, for the whole question."""

    n: int
    effective_n: float
    estimate: tuple[float, ...]
    std_error: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    design_effect: tuple[float, ...]
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "effective_n": self.effective_n, "estimate": list(self.estimate),
                "std_error": list(self.std_error), "ci_low": list(self.ci_low), "ci_high": list(self.ci_high),
                "design_effect": list(self.design_effect), "confidence": self.confidence}


def indicators(mechanism: Mechanism, reports: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(n, k) 0/1: report j (index mechanisms: a flat array of option indexes) or bit j (unary: (n, k) bits).

    >>> from ldp import KaryRR
    >>> indicators(KaryRR(1.0, 3), [2, 0]).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    array = np.asarray(reports)
    if mechanism.unary:
        if array.ndim != 2 or array.shape[1] != mechanism.k or not np.isin(array, (0, 1)).all():
            raise ValueError(f"unary reports must be an (n, {mechanism.k}) array of bits")
        return array.astype(float)
    if array.ndim != 1 or (array.size and (array.min() < 0 or array.max() >= mechanism.k)):
        raise ValueError(f"reports must be a flat array of option indexes in [0, {mechanism.k})")
    return np.asarray(array[:, None] == np.arange(mechanism.k), dtype=float)


def weighted_fractions(mechanism: Mechanism, reports: npt.ArrayLike, design: Raked,
                       confidence: float = 0.95) -> WeightedEstimate:
    """Debiased per-option fractions under the design's weights (module docstring).

    >>> from ldp import QRandomizedResponse
    >>> from ldp.weighting.raking import margin, rake
    >>> design = rake([margin("g", ["a", "a", "b", "b"], {"a": 0.25, "b": 0.75})], cap=None)
    >>> found = weighted_fractions(QRandomizedResponse("0.5"), [1, 0, 1, 1], design)
    >>> [round(x, 6) for x in found.estimate]
    [-0.25, 1.25]
    """
    check_confidence(confidence)
    y = indicators(mechanism, reports)
    if y.shape[0] != design.weights.size:
        raise ValueError("one report per weight")
    lam, variance = design.mean(y)
    spreads = lam * (1.0 - lam)
    variance = np.where(variance <= ROUNDING * spreads, 0.0, variance)  # a share the raking fixes (docstring)
    gap = mechanism.p - mechanism.q_other
    n = design.n
    low, high = [], []
    for rate, var, spread in zip(lam, variance, spreads, strict=True):
        if var == 0 and spread > 0:
            lo = hi = rate
        else:
            size = spread / var if var > 0 else design.effective_n
            lo, hi = wilson(rate * size, size, confidence)  # type: ignore[arg-type]  # real x, n: same formula
        low.append((lo - mechanism.q_other) / gap)
        high.append((hi - mechanism.q_other) / gap)
    srs = spreads / n
    deff = np.where(srs > 0, variance / np.where(srs > 0, srs, 1.0), math.nan)
    return WeightedEstimate(
        n=n, effective_n=design.effective_n,
        estimate=tuple(float(x) for x in (lam - mechanism.q_other) / gap),
        std_error=tuple(float(x) for x in np.sqrt(variance) / gap),
        ci_low=tuple(float(np.clip(x, 0.0, 1.0)) for x in low),
        ci_high=tuple(float(np.clip(x, 0.0, 1.0)) for x in high),
        design_effect=tuple(float(x) for x in deff), confidence=confidence)


def weighted_mean(values: npt.ArrayLike, design: Raked, lo: float, hi: float,
                  confidence: float = 0.95, df: int | None = None) -> MeanEstimate:
    """The weighted mean of per-report unbiased values, its linearization SE and an interval in [lo, hi]: normal,
    or Student t on `df` degrees of freedom when given (a number sent as given: see `surveys` weighting.weigh).

    >>> e = weighted_mean([1.0, 3.0, 5.0, 7.0], Raked.unweighted(4), 0.0, 10.0)
    >>> e.mean, round(e.std_error, 6)
    (4.0, 1.290994)
    """
    check_confidence(confidence)
    mean, variance = design.mean(np.asarray(values, dtype=float))
    se = math.sqrt(float(variance))
    z = z_value(confidence) if df is None else t_value(confidence, df)
    m = float(mean)
    return MeanEstimate(m, se, float(np.clip(m - z * se, lo, hi)), float(np.clip(m + z * se, lo, hi)),
                        confidence, design.n)

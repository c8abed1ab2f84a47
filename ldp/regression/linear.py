"""Linear regression of a numeric question's mean on covariates, from unbiased per-report values.

Each numeric report has an unbiased per-report value v_i, E[v_i | x_i] = E[true value | x_i], each mechanism's
own (`GridMechanism.report_values`):
* 1-bit mean: v = lo + (hi - lo) (y - q) / (p - q), y the reported bit;
* discrete Laplace: the report itself in units, v = lo + step r (its noise has mean 0).
So ordinary least squares of v on x (with an intercept) is unbiased for b in E[value | x] = x'b. The
noise is heteroskedastic (it depends on the true value), so the standard errors are HC1:

    V = n / (n - k) (X'X)^-1 (sum_i e_i^2 x_i x_i') (X'X)^-1,   e = v - X b,

k the number of terms; intervals from Student's t with n - k degrees of freedom, and each term's test
t = b / SE with its two-sided p-value from the same law (so p < 1 - confidence exactly when the interval leaves
out 0). The fit works on the columns centred and scaled (`ldp.regression.scaling`), the figures mapped back. A weighted
fit solves
the weighted least squares and takes the sandwich (X'WX)^-1 B (X'WX)^-1 with B = n / (n - 1)
sum w_i^2 r_i r_i', r_i the residuals of e_i x_i on the design's margins (`Raked.residuals`).

Grouped rows (`counts`, as in `ldp.regression.logistic`): a row stands for that many respondents with the same
covariates and the same value; every sum above is over respondents, so the fit is that of the rows
written out (n the total count).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import Mechanism
from ..mechanisms.grid import GridMechanism
from ..stats.intervals import check_confidence, regularized_beta, t_value
from ..stats.row_counts import row_counts, same_counts
from ..weighting.raking import Raked
from .scaling import scaled

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LinearFit:
    terms: tuple[str, ...]
    estimate: tuple[float, ...]
    std_error: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    z: tuple[float, ...]  # estimate / std_error (Student's t with n - k degrees of freedom)
    p_values: tuple[float, ...]  # each term's two-sided test
    n: int
    se: str  # "HC1" or "sandwich"
    confidence: float
    covariance: FloatArray = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"terms": list(self.terms), "estimate": list(self.estimate), "std_error": list(self.std_error),
                "ci_low": list(self.ci_low), "ci_high": list(self.ci_high), "z": list(self.z),
                "p_values": list(self.p_values), "n": self.n, "se": self.se,
                "confidence": self.confidence}


def per_report_values(mechanism: Mechanism, reports: npt.ArrayLike) -> FloatArray:
    """`GridMechanism.report_values`: unbiased per-report values in units, from reports as sent; ValueError for
    a question that is not numeric.

    >>> from ldp import OneBitMean
    >>> per_report_values(OneBitMean(1.0, "0", "10", "1"), [0, 1]).round(4).tolist()
    [-5.8198, 15.8198]
    """
    if not isinstance(mechanism, GridMechanism):
        raise ValueError("per-report values are for numeric questions (onebit, dlaplace, direct_number)")
    return mechanism.report_values(reports)


def fit(values: npt.ArrayLike, x: npt.ArrayLike, *, terms: Sequence[str] | None = None,
        design: Raked | None = None, confidence: float = 0.95, counts: npt.ArrayLike | None = None) -> LinearFit:
    """OLS (or WLS under a design) of the per-report values on x (which includes the intercept column);
    `counts`: the respondents each row stands for (a design's own `counts` must be the same).

    >>> x = np.column_stack([np.ones(4), [0.0, 1.0, 2.0, 3.0]])
    >>> found = fit([1.0, 3.0, 2.0, 5.0], x, terms=["(Intercept)", "t"])
    >>> [round(b, 6) for b in found.estimate], [round(s, 6) for s in found.std_error]
    ([1.1, 1.1], [0.526498, 0.336452])
    """
    check_confidence(confidence)
    v = np.asarray(values, dtype=float).reshape(-1)
    xx = np.asarray(x, dtype=float)
    rows, k = xx.shape
    if v.size != rows:
        raise ValueError("x must have one row per value")
    names = tuple(terms) if terms is not None else tuple(f"x{j}" for j in range(k))
    if len(names) != k:
        raise ValueError("one term name per column of x")
    m = row_counts(counts, rows)
    if design is not None and (design.weights.size != rows or not same_counts(design.counts, m)):
        raise ValueError("the design must have one weight per value (and the same counts)")
    n = rows if m is None else int(m.sum())
    w = (np.ones(rows) if m is None else m) if design is None else design.mass
    scale = scaled(xx, m)
    zz = scale.z
    gram = (zz * w[:, None]).T @ zz
    if n <= k or np.linalg.matrix_rank(gram) < k:
        raise ValueError("the covariates are collinear or constant (or there are fewer reports than terms)")
    bread = np.linalg.inv(gram)
    g = bread @ (zz.T @ (w * v))
    e = v - zz @ g
    if design is None:
        meat = (zz * (e**2 if m is None else m * e**2)[:, None]).T @ zz * (n / (n - k))
        kind = "HC1"
    else:
        r = design.residuals(e[:, None] * zz)
        meat = (r * (design.weights * w)[:, None]).T @ r * (n / (n - 1))
        kind = "sandwich"
    b, covariance = scale.coefficients(g), scale.covariance(bread @ meat @ bread)
    std = np.sqrt(np.diag(covariance))
    t = t_value(confidence, n - k)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = b / std
    return LinearFit(terms=names, estimate=_floats(b), std_error=_floats(std), ci_low=_floats(b - t * std),
                     ci_high=_floats(b + t * std), z=_floats(ratio),
                     p_values=tuple(t_two_sided(r, n - k) for r in ratio),
                     n=n, se=kind, confidence=confidence, covariance=covariance)


def t_two_sided(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's T with df degrees of freedom: I_{df / (df + t^2)}(df / 2, 1 / 2)."""
    if not np.isfinite(t):
        return 0.0 if np.isinf(t) else math.nan
    return regularized_beta(df / (df + float(t) ** 2), df / 2.0, 0.5)


def _floats(values: FloatArray) -> tuple[float, ...]:
    return tuple(float(x) for x in values)

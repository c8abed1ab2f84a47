"""The columns of a model's design matrix centred and scaled for the fit, and the coefficients mapped back.

A covariate on a large scale (an income of 0 to 20,000 and its square, up to 4 10^8) makes X'X span twenty orders
of magnitude: its rank, computed in floating point against the largest singular value, then counts the intercept
as lost, and Newton's steps lose digits. The fits (`ldp.regression.logistic`, `ldp.regression.linear`) therefore work on

    Z: each column of X but a constant one centred (when X has a constant column: the intercept) and divided
    by its standard deviation over the respondents,

an affine change of the covariates that the intercept absorbs: Z g = X b for b = M g, so the coefficients and their
covariance on the original scale are b = M g and Cov(b) = M Cov(g) M' (M diagonal, 1 / the spreads, but for the
intercept's row, which takes back the centres). The
likelihood, fitted values and every test are unchanged; the rank check on Z'Z then calls covariates collinear only
when they are (a constant column but the intercept, or one a combination of the others).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Scaled:
    z: FloatArray  # the scaled design matrix
    back: FloatArray  # M: original coefficients = M @ scaled ones

    def coefficients(self, scaled: FloatArray) -> FloatArray:
        return np.asarray(self.back @ scaled, dtype=float)

    def covariance(self, scaled: FloatArray) -> FloatArray:
        return np.asarray(self.back @ scaled @ self.back.T, dtype=float)


def scaled(x: FloatArray, weights: FloatArray | None = None) -> Scaled:
    """Z and M for the design matrix x (rows weighted by `weights`, a grouped row's count: the centre and the
    spread are those of the respondents). The constant column (the intercept) stays as it is; a column that is
    constant otherwise is left unscaled (the rank check then refuses it)."""
    rows, k = x.shape
    w = np.ones(rows) if weights is None else np.asarray(weights, dtype=float)
    total = float(w.sum()) if rows else 1.0
    constant = [j for j in range(k) if rows and np.all(x[:, j] == x[0, j])]
    intercept = next((j for j in constant if x[0, j] != 0.0), None)
    centre, spread = np.zeros(k), np.ones(k)
    for j in range(k):
        if j in constant:
            continue
        column = x[:, j]
        mid = float(w @ column) / total if intercept is not None else 0.0
        size = float(np.sqrt(w @ (column - mid) ** 2 / total))
        if size > 0.0 and np.isfinite(size):
            centre[j], spread[j] = mid, size
    z = (x - centre) / spread
    back = np.diag(1.0 / spread)
    if intercept is not None:  # X b = Z g: the intercept takes -sum_j g_j centre_j / spread_j
        back[intercept, :] -= centre / spread / x[0, intercept]
        back[intercept, intercept] = 1.0
    return Scaled(np.asarray(z, dtype=float), back)

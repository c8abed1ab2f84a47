"""Are two questions' answers related in the population? The independence test under weights (Rao and Scott).

Unweighted, Pearson's X^2 on the table of report pairs tests independence (`ldp.joint.association`). Under weights
that test answers the wrong question: a sample selected on a third variable (age, say) can show a relation the
population does not have, or hide one it has. Weighted, the hypothesis is about the population's reports
(independent there if the true answers are: each report is randomized on its own), and the design's variance
replaces the multinomial one, by Rao and Scott's second-order correction (Rao & Scott 1984; as R's
`survey::svychisq`, statistic "F", computes it):

- p_hat: the weighted means of the r x c cell indicators (one per report pair), V their linearization covariance
  through the raking (`Raked.residuals`, the same variance as `Raked.mean`'s, with the covariances);
- X^2 = Pearson's statistic on the weighted table scaled to n respondents;
- C: the interaction contrasts, the r c columns of the saturated model's interaction terms less their projection
  on the main effects; Delta = (C' D^-1 C / n)^-1 (C' D^-1 V D^-1 C), D = diag(p_hat): the generalized design
  effects (with an empty cell, D holds the shares under independence, the products of the margins: empty cells
  in a cycle would make C' D^-1 C singular, and R's svychisq fails there);
- F = X^2 / tr(Delta), referred to the F distribution on d0 = tr(Delta)^2 / tr(Delta^2) and d0 (n - 1) degrees of
  freedom (n - 1: each respondent is a primary unit of one stratum).

Without weights and margins Delta is close to the identity and F (r - 1)(c - 1) close to X^2. Unary questions are
tested bit by bit as unweighted, with Bonferroni's p-value over the tables; rows and columns empty in the weighted
table are left out. The effect size (Cramer's V) stays the unweighted reports' (`ldp.joint.association`).

The F distribution's upper tail is the regularized incomplete beta function (`ldp.stats.intervals.regularized_beta`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..joint.association import Independence, independence
from ..joint.tables import JointCounts
from ..mechanisms.base import Mechanism
from ..stats.intervals import regularized_beta
from .estimates import indicators
from .raking import Raked

FloatArray = npt.NDArray[np.float64]


def weighted_independence(a: Mechanism, reports_a: npt.ArrayLike, b: Mechanism, reports_b: npt.ArrayLike,
                          design: Raked, counts: JointCounts) -> Independence:
    """Rao and Scott's F test of independence on the weighted reports (module docstring); the effect size from
    `counts`, the same reports' unweighted pairs.

    >>> from ldp import Direct
    >>> d = Direct(2)
    >>> ra, rb = [0, 0, 1, 1, 1] * 20, [0, 1, 0, 1, 1] * 20
    >>> c = JointCounts.from_values(d, d, ra, rb)
    >>> r = weighted_independence(d, ra, d, rb, Raked.fixed([1.0, 2.0] * 50), c)
    >>> r.method, r.tables, round(r.statistic, 4), round(r.df, 4), round(r.denominator_df, 4)  # R: svychisq
    ('rao_scott', 1, 2.475, 1.0, 99.0)
    >>> round(r.p_value, 10)
    0.1188599769
    """
    xa, xb = indicators(a, reports_a), indicators(b, reports_b)
    if xa.shape[0] != design.weights.size or xb.shape[0] != design.weights.size:
        raise ValueError("one report of each question per weight")
    best = (math.inf, 0.0, 0.0, 0.0)
    tables = [(rows, columns) for rows in _sides(xa, a.unary) for columns in _sides(xb, b.unary)]
    for rows, columns in tables:
        f, d0, nu = rao_scott(design, rows, columns)
        best = min(best, (f_sf(f, d0, d0 * nu), f, d0, d0 * nu))
    unweighted = independence(a, b, counts)
    return Independence(min(1.0, best[0] * len(tables)), best[1], best[2], len(tables), unweighted.phi_squared,
                        unweighted.cramers_v, method="rao_scott", denominator_df=best[3])


def _sides(x: FloatArray, unary: bool) -> list[FloatArray]:
    """One table side: the options' indicators, or for a unary question each bit as a (bit set, not set) pair."""
    if not unary:
        return [x]
    return [np.stack([x[:, j], 1.0 - x[:, j]], axis=1) for j in range(x.shape[1])]


def rao_scott(design: Raked, rows: FloatArray, columns: FloatArray) -> tuple[float, float, float]:
    """(F, d0, n - 1) for the table of `rows` (n, r) by `columns` (n, c) indicators (module docstring);
    (0, 1, n - 1) when fewer than two rows or columns are present."""
    n = design.n
    weighted = design.mass
    rows = rows[:, weighted @ rows > 0]
    columns = columns[:, weighted @ columns > 0]
    r, c = rows.shape[1], columns.shape[1]
    if r < 2 or c < 2:
        return 0.0, 1.0, float(n - 1)
    cells = (rows[:, :, None] * columns[:, None, :]).reshape(rows.shape[0], r * c)  # cell (i, j) at i c + j
    p, variance = _mean_and_covariance(design, cells)
    table = (p * n).reshape(r, c)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n  # every row and column kept has weight: > 0
    x2 = float(((table - expected) ** 2 / expected).sum())
    # D: the cells' shares, as R takes them; with an empty cell, the shares independence gives them (Rao and
    # Scott's own choice under the hypothesis), since empty cells in a cycle make C' D^-1 C singular.
    shares = p if (p > 0).all() else expected.reshape(-1) / n
    contrasts = _interaction_contrasts(r, c)
    scaled = contrasts / shares[:, None]
    delta = np.linalg.solve(contrasts.T @ scaled / n, scaled.T @ variance @ scaled)
    trace = float(np.trace(delta))
    return x2 / trace, trace**2 / float(np.trace(delta @ delta)), float(n - 1)


def _mean_and_covariance(design: Raked, values: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Weighted means of the columns and their linearization covariance: `Raked.mean`'s variance, off the diagonal
    too."""
    mass, n = design.mass, design.n
    total = mass.sum()
    e = design.residuals(values) * design.weights[:, None]
    counted = e if design.counts is None else e * design.counts[:, None]
    return (mass @ values) / total, n / max(n - 1, 1) * (counted.T @ e) / total**2


def _interaction_contrasts(r: int, c: int) -> FloatArray:
    """The saturated model's interaction columns less their least-squares projection on the main effects, cells
    ordered i c + j (row i, column j)."""
    i, j = np.divmod(np.arange(r * c), c)
    main = np.column_stack([np.ones(r * c)] + [i == k for k in range(1, r)] + [j == k for k in range(1, c)])
    interaction = np.column_stack([(i == k) & (j == m) for k in range(1, r) for m in range(1, c)]).astype(float)
    coefficients, *_ = np.linalg.lstsq(main.astype(float), interaction, rcond=None)
    return np.asarray(interaction - main @ coefficients, dtype=float)


def f_sf(x: float, d1: float, d2: float) -> float:
    """P(F >= x) for F ~ F(d1, d2) = I_{d2 / (d2 + d1 x)}(d2 / 2, d1 / 2); 1 for x <= 0.

    >>> round(f_sf(4.0, 2.0, 10.0), 12), round(f_sf(3.0, 1.5, 1e6), 10)  # R: pf(x, d1, d2, lower.tail = FALSE)
    (0.052922149401, 0.0648063504)
    """
    if x <= 0.0:
        return 1.0
    return regularized_beta(d2 / (d2 + d1 * x), d2 / 2.0, d1 / 2.0)


__all__ = ["f_sf", "rao_scott", "weighted_independence"]

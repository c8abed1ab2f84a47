"""Weighted cross-tabs: joint and conditional fractions of two questions under weights (`ldp.weighting.raking.Raked`).

The unweighted joint estimate (`ldp.joint.tables`) is the mean of the per-respondent score products s_a s_b, with
s_a = (x_a - q_A) / g_A unbiased for A's indicator. Under weights it is their weighted mean,

    pi_w_ab = sum w_i s_a,i s_b,i / sum w_i,

a weighted mean like any other: its variance is `Raked.mean`'s linearization variance, which accounts for
the weights and for the margins they were raked to (the same method as the weighted fractions and means of
`ldp.weighting.estimates`). Its interval is the same score interval as the unweighted cell's, at the cell's effective
sample size n*_ab = V_1(pi_w_ab) / Var(pi_w_ab), V_1 the one-respondent plug-in variance of s_a s_b at the
weighted report rates (the n whose unweighted variance equals the weighted one; Kish's effective n where
either is 0). For two direct questions that is the Wilson interval at the effective n of `weighted_fractions`.

The conditional fraction P(B = b | A = a) = pi_w_ab / pi_w_a is a ratio of two weighted means. Fieller's
interval needs Var(pi_w_ab), Var(pi_w_a) and their covariance: all from `Raked.mean` (the covariance as
(Var(u + v) - Var(u) - Var(v)) / 2, exact because the linearization variance is a quadratic form in the
residuals), so the delta-method standard error is that of the linearized ratio (s_a s_b - R s_a) / pi_w_a.

Grouped rows (`Raked.counts`) give the figures of the rows written out. Reports are given as
`ldp.weighting.estimates.indicators` takes them: option indexes, or (n, k) bits for unary questions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..joint.tables import Conditional, JointEstimate, _floats, _table, fieller, rate_moments, score_interval
from ..mechanisms.base import Mechanism
from ..stats.intervals import check_confidence, z_value
from .estimates import indicators
from .raking import Raked

FloatArray = npt.NDArray[np.float64]
BATCH = 4_000_000  # numbers (32 MB) per call of Raked.mean


def _scores(mechanism: Mechanism, reports: npt.ArrayLike, design: Raked) -> tuple[FloatArray, FloatArray]:
    """The 0/1 indicators x (n, k) and the unbiased scores s = (x - q) / g."""
    x = indicators(mechanism, reports)
    if x.shape[0] != design.weights.size:
        raise ValueError("one report per weight")
    return x, (x - mechanism.q_other) / (mechanism.p - mechanism.q_other)


def _rates(design: Raked, xa: FloatArray, xb: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    w = design.mass  # grouped rows: each row's weight times the respondents it stands for
    total = w.sum()
    return ((xa * w[:, None]).T @ xb) / total, (w @ xa) / total, (w @ xb) / total


def weighted_joint(a: Mechanism, reports_a: npt.ArrayLike, b: Mechanism, reports_b: npt.ArrayLike, design: Raked,
                   *, confidence: float = 0.95) -> JointEstimate:
    """Joint fractions pi_ab under the design's weights, their linearization SEs and score intervals at each cell's
    effective sample size (module docstring).

    >>> from ldp import Direct
    >>> d = Direct(2)
    >>> e = weighted_joint(d, [0, 0, 1, 1], d, [0, 1, 1, 1], Raked.fixed([1.0, 1.0, 1.0, 3.0]))
    >>> e.estimate
    ((0.16666666666666666, 0.16666666666666666), (0.0, 0.6666666666666666))
    """
    check_confidence(confidence)
    xa, sa = _scores(a, reports_a, design)
    xb, sb = _scores(b, reports_b, design)
    estimate, variance = _cells(design, sa, sb)
    lab, la, lb = _rates(design, xa, xb)
    one = rate_moments(a, b, lab, la, lb, 1.0).var  # one respondent's plug-in variance at the weighted rates
    with np.errstate(divide="ignore", invalid="ignore"):
        size = np.where((variance > 0) & (one > 0), one / variance, design.effective_n)
    moments = rate_moments(a, b, lab, la, lb, size)
    moments = type(moments)(**{**moments.__dict__, "pi": estimate, "var": variance * size})
    low, high = score_interval(moments, size, z_value(confidence))
    return JointEstimate(n=design.n, estimate=_table(estimate), std_error=_table(np.sqrt(variance)),
                         ci_low=_table(low), ci_high=_table(high), row_sums=_floats(estimate.sum(axis=1)),
                         column_sums=_floats(estimate.sum(axis=0)), confidence=confidence)


def weighted_conditional(a: Mechanism, reports_a: npt.ArrayLike, b: Mechanism, reports_b: npt.ArrayLike,
                         design: Raked, *, given: str = "a", confidence: float = 0.95) -> Conditional:
    """P(B = b | A = a) under the design's weights (given "a", rows a), or P(A = a | B = b) (given "b", rows b),
    with the delta-method SE and Fieller's interval from linearization (co)variances (module docstring).

    >>> from ldp import Direct
    >>> d = Direct(2)
    >>> r = weighted_conditional(d, [0, 0, 1, 1], d, [0, 1, 1, 1], Raked.fixed([1.0, 1.0, 1.0, 3.0]))
    >>> r.estimate
    ((0.5, 0.5), (0.0, 1.0))
    """
    if given not in ("a", "b"):
        raise ValueError("given must be 'a' or 'b'")
    check_confidence(confidence)
    if given == "b":
        a, reports_a, b, reports_b = b, reports_b, a, reports_a
    _, sa = _scores(a, reports_a, design)
    _, sb = _scores(b, reports_b, design)
    k = sb.shape[1]
    # Per row a: the cells s_a s_b, and s_a s_b + s_a for their covariance with the denominator.
    found = _by_rows(design, lambda i: np.hstack([sa[:, [i]] * sb, sa[:, [i]] * (sb + 1.0)]), sa.shape[1])
    num, v_num = (np.stack([part[:k] for part in parts]) for parts in zip(*found, strict=True))
    both = np.stack([variance[k:] for _, variance in found])
    den, v_den = design.mean(sa)
    cov = (both - v_num - v_den[:, None]) / 2.0
    return fieller(given, num, den[:, None], v_num, v_den[:, None], cov, confidence)


def _cells(design: Raked, sa: FloatArray, sb: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The weighted mean of s_a s_b for every cell and its linearization variance, (k_A, k_B) each."""
    found = _by_rows(design, lambda i: sa[:, [i]] * sb, sa.shape[1])
    return np.stack([mean for mean, _ in found]), np.stack([variance for _, variance in found])


def _by_rows(design: Raked, columns: Callable[[int], FloatArray], rows: int) -> list[tuple[FloatArray, FloatArray]]:
    """`Raked.mean` of each row's columns, several rows per call (one regression on the margins for all) while
    they hold at most BATCH numbers: a large survey's table is not held whole."""
    found: list[tuple[FloatArray, FloatArray]] = []
    batch: list[FloatArray] = []

    def flush() -> None:
        if batch:
            mean, variance = design.mean(np.hstack(batch))
            ends = np.cumsum([0] + [block.shape[1] for block in batch])
            found.extend((mean[lo:hi], variance[lo:hi]) for lo, hi in zip(ends[:-1], ends[1:], strict=True))
            batch.clear()

    for i in range(rows):
        block = columns(i)
        if batch and (sum(b.shape[1] for b in batch) + block.shape[1]) * design.weights.size > BATCH:
            flush()
        batch.append(block)
    flush()
    return found


__all__ = ["weighted_conditional", "weighted_joint"]

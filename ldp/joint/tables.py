"""Joint estimates for two questions A and B: cross-tabs, subgroup results, conditional fractions.

Each question's report is randomized independently, so unbiased per-question scores multiply.
With x_a = 1 when A's report counts for option a (index: the report is a; unary: bit a is set),
and A's channel p_A, q_A (g_A = p_A - q_A):

    s_a = (x_a - q_A) / g_A,        E[s_a | truth t] = 1[t = a],

and, B's randomization being independent of A's given the truths,
E[s_a s_b | truths] = 1[t_A = a] 1[t_B = b]. So the mean over the n respondents who answered
both questions,

    pi_hat_ab = mean(s_a s_b) = (l_ab - q_B l_a - q_A l_b + q_A q_B) / (g_A g_B),

with l_ab = N_ab / n, l_a = N_a / n, l_b = N_b / n, is unbiased for the joint fraction pi_ab.
It needs only `JointCounts`: the co-occurrence counts N_ab, the per-question counts N_a, N_b,
and n. A direct question is the identity channel (p = 1, q = 0), so subgroup results ("by age
band") are the same computation.

Variance (i.i.d. respondents): Var(pi_hat_ab) = (E[s_a^2 s_b^2] - pi_ab^2) / n, and because
(x - q)^2 = x (1 - 2q) + q^2 for a 0/1 indicator x,

    E[s_a^2 s_b^2] = ((1-2q_A)(1-2q_B) l_ab + (1-2q_A) q_B^2 l_a + q_A^2 (1-2q_B) l_b + q_A^2 q_B^2) / (g_A g_B)^2.

The standard error plugs in the observed rates: it is the empirical variance of the score
products (divisor n). For two index questions this equals the Kronecker formula
Cov(vec pi_hat) = M^-1 (diag(l) - l l^T) M^-T / n, M = P_A (x) P_B (see `covariance`).

Interval: a score (Wilson-type) interval with continuity correction. With the nuisance rates
l_a, l_b fixed at their observed values, E[s_a^2 s_b^2] is linear in pi_ab, so the variance of
one product is V(pi) = c0 + c1 pi - pi^2 with c1 = (1-2q_A)(1-2q_B) / (g_A g_B), and each end solves

    n (pi_hat -+ delta - pi)^2 = z^2 V(pi),        delta = 1 / (2 n g_A g_B)

(a quadratic), taking the root below pi_hat - delta (lower end; 0 if pi_hat - delta <= 0) and
above pi_hat + delta (upper end; 1 if pi_hat + delta >= 1), clipped to [0, 1]. For two direct
questions this is exactly the continuity-corrected Wilson interval of `ldp.stats.intervals.wilson`;
delta is the same correction mapped to the pi scale, 1/(2n) per unit of report rate.

Marginals: for an index-encoded B (s_b sums to 1 over b, since p + (k-1) q = 1), the row sums
sum_b pi_hat_ab equal A's own unbiased estimate (N_a / n - q_A) / g_A exactly, and likewise the
column sums for an index-encoded A. For a unary B the row sums are only unbiased for pi_a: they
differ from A's estimate by the mean of s_a (sum_b s_b - 1), whose expectation is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import Mechanism
from ..stats.intervals import check_confidence, z_value
from .counts import JointCounts

FloatArray = npt.NDArray[np.float64]
Table = tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class JointEstimate:
    """k_A x k_B tables (rows: A's options) and the marginal sums of the unbiased table."""

    n: int
    estimate: Table
    std_error: Table
    ci_low: Table
    ci_high: Table
    row_sums: tuple[float, ...]
    column_sums: tuple[float, ...]
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return {key: _lists(value) for key, value in self.__dict__.items()}


@dataclass(frozen=True)
class Conditional:
    """P(B = b | A = a) = pi_ab / pi_a (rows: a) with the Fieller interval.

    `bounded[a]` is False when the normal interval of the denominator pi_a reaches 0: the set of
    ratios the data do not reject is then unbounded, and the row's intervals are [0, 1].
    `std_error` is the delta-method one, sqrt(V_ab - 2 R V_ab,a + R^2 V_a) / pi_a.
    """

    given: str
    estimate: Table
    std_error: Table
    ci_low: Table
    ci_high: Table
    bounded: tuple[bool, ...]
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return {key: _lists(value) for key, value in self.__dict__.items()}


@dataclass(frozen=True)
class _Moments:
    """Per-cell plug-in moments, all k_A x k_B (or broadcastable) arrays."""

    pi: FloatArray  # pi_hat_ab
    pi_a: FloatArray  # A's own estimate, (k_A, 1)
    var: FloatArray  # Var(s_a s_b), one respondent
    var_a: FloatArray  # Var(s_a), (k_A, 1)
    cov_a: FloatArray  # Cov(s_a s_b, s_a)
    c0: FloatArray  # V(pi) = c0 + c1 pi - pi^2
    c1: float
    delta: float | FloatArray  # an array for weighted cells (each its effective n)


def _moments(a: Mechanism, b: Mechanism, counts: JointCounts) -> _Moments:
    n = counts.n
    return rate_moments(a, b, counts.pairs / n, counts.a_counts / n, counts.b_counts / n, n)


def rate_moments(a: Mechanism, b: Mechanism, lab: FloatArray, la_: FloatArray, lb_: FloatArray,
                 n: float | FloatArray) -> _Moments:
    """The moments from report rates (l_ab, l_a, l_b): counts over n, or weighted rates (`ldp.weighting.joint`,
    whose n is each cell's effective sample size, an array)."""
    qa, ga, qb, gb = a.q_other, a.p - a.q_other, b.q_other, b.p - b.q_other
    la = np.asarray(la_, dtype=float)[:, None]
    lb = np.asarray(lb_, dtype=float)[None, :]
    ua, ub = 1.0 - 2.0 * qa, 1.0 - 2.0 * qb
    pi = (lab - qb * la - qa * lb + qa * qb) / (ga * gb)
    pi_a = (la - qa) / ga
    square = (ua * ub * lab + ua * qb**2 * la + qa**2 * ub * lb + qa**2 * qb**2) / (ga * gb) ** 2
    cross = (ua * (lab - qb * la) + qa**2 * (lb - qb)) / (ga**2 * gb)  # E[s_a^2 s_b]
    c1 = ua * ub / (ga * gb)
    return _Moments(pi=pi, pi_a=pi_a, var=np.maximum(square - pi**2, 0.0), var_a=la * (1.0 - la) / ga**2,
                    cov_a=cross - pi * pi_a, c0=square - c1 * pi, c1=c1, delta=0.5 / (n * ga * gb))


def estimate_joint(a: Mechanism, b: Mechanism, counts: JointCounts, *, confidence: float = 0.95) -> JointEstimate:
    """Unbiased joint fractions pi_ab with standard errors and score intervals (module docstring).

    >>> from ldp import Direct, QRandomizedResponse
    >>> a, b = QRandomizedResponse("0.5"), Direct(2)
    >>> c = JointCounts.from_counts(a, b, [[30, 20], [10, 40]], 100)
    >>> e = estimate_joint(a, b, c)
    >>> np.round(e.estimate, 3).tolist()
    [[0.4, 0.1], [0.0, 0.5]]
    >>> e.row_sums == a.estimate([50, 50], 100).estimate, np.round(e.column_sums, 12).tolist()
    (True, [0.4, 0.6])
    >>> np.round(e.std_error, 3).tolist(), np.round(e.ci_low, 3).tolist()
    ([[0.073, 0.073], [0.055, 0.084]], [[0.253, 0.0], [0.0, 0.329]])
    """
    check_confidence(confidence)
    m = _moments(a, b, counts)
    low, high = score_interval(m, counts.n, z_value(confidence))
    return JointEstimate(
        n=counts.n, estimate=_table(m.pi), std_error=_table(np.sqrt(m.var / counts.n)),
        ci_low=_table(low), ci_high=_table(high), row_sums=_floats(m.pi.sum(axis=1)),
        column_sums=_floats(m.pi.sum(axis=0)), confidence=confidence)


def score_interval(m: _Moments, n: float | FloatArray, z: float) -> tuple[FloatArray, FloatArray]:
    z2 = z * z
    wald = z * np.sqrt(m.var / n)
    ends = []
    for sign in (-1.0, 1.0):
        centre = m.pi + sign * m.delta
        # n (centre - pi)^2 = z^2 (c0 + c1 pi - pi^2)  <=>  A pi^2 - B pi + C = 0
        big_a, big_b, big_c = n + z2, 2.0 * n * centre + z2 * m.c1, n * centre**2 - z2 * m.c0
        disc = big_b**2 - 4.0 * big_a * big_c
        root = (big_b + sign * np.sqrt(np.maximum(disc, 0.0))) / (2.0 * big_a)
        # A negative discriminant means the plug-in variance is negative at the centre (an
        # impossible table); the normal interval is used there.
        ends.append(np.where(disc >= 0.0, root, centre + sign * wald))
    low = np.where(m.pi - m.delta <= 0.0, 0.0, ends[0])
    high = np.where(m.pi + m.delta >= 1.0, 1.0, ends[1])
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def covariance(a: Mechanism, b: Mechanism, counts: JointCounts) -> FloatArray:
    """Two index questions: Cov(vec pi_hat) = M^-1 (diag(l) - l l^T) M^-T / n, M = P_A (x) P_B,
    l = vec(pairs) / n (row-major: entry a k_B + b). P[r, t] = P(report r | truth t).

    >>> from ldp import QRandomizedResponse
    >>> a = QRandomizedResponse("0.5")
    >>> c = JointCounts.from_counts(a, a, [[30, 20], [10, 40]], 100)
    >>> bool(np.allclose(np.sqrt(np.diag(covariance(a, a, c))), np.ravel(estimate_joint(a, a, c).std_error)))
    True
    """
    if a.unary or b.unary:
        raise ValueError("the Kronecker covariance is for two index-encoded questions")
    big_m = np.kron(_channel(a), _channel(b))
    lam = counts.pairs.reshape(-1) / counts.n
    inverse = np.linalg.inv(big_m)
    return np.asarray(inverse @ (np.diag(lam) - np.outer(lam, lam)) @ inverse.T / counts.n, dtype=float)


def _channel(m: Mechanism) -> FloatArray:
    return np.full((m.k, m.k), m.q_other) + np.eye(m.k) * (m.p - m.q_other)


def estimate_conditional(a: Mechanism, b: Mechanism, counts: JointCounts, *, given: str = "a",
                         confidence: float = 0.95) -> Conditional:
    """P(B = b | A = a) = pi_ab / pi_a (given "a", rows a) or P(A = a | B = b) (given "b", rows b).

    The denominator is the conditioning question's own unbiased estimate. Fieller's interval:
    the R with (pi_ab - R pi_a)^2 <= z^2 (V_ab - 2 R C + R^2 V_a), V and C the plug-in
    (co)variances of pi_hat_ab and pi_hat_a; bounded exactly when pi_a > z sqrt(V_a), i.e. the
    normal interval of the denominator stays above 0. Ends clipped to [0, 1].

    >>> from ldp import Direct
    >>> d = Direct(2)
    >>> c = JointCounts.from_counts(d, d, [[30, 20], [10, 40]], 100)
    >>> r = estimate_conditional(d, d, c)
    >>> r.estimate, r.bounded
    (((0.6, 0.4), (0.2, 0.8)), (True, True))
    """
    if given not in ("a", "b"):
        raise ValueError("given must be 'a' or 'b'")
    check_confidence(confidence)
    if given == "b":
        a, b, counts = b, a, counts.transposed()
    m = _moments(a, b, counts)
    n = counts.n
    return fieller(given, m.pi, m.pi_a, m.var / n, m.var_a / n, m.cov_a / n, confidence)


def fieller(given: str, num: FloatArray, den_: FloatArray, v_num: FloatArray, v_den_: FloatArray, cov: FloatArray,
            confidence: float) -> Conditional:
    """The ratios num / den (den one per row, (k, 1)) with delta-method SEs and Fieller's intervals, from the
    (co)variances of the estimates: the plug-in ones (`estimate_conditional`) or the weighted ones
    (`ldp.weighting.joint`)."""
    z2 = z_value(confidence) ** 2
    den, v_den = np.broadcast_to(den_, num.shape), np.broadcast_to(v_den_, num.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(den != 0.0, num / den, np.nan)
        se = np.sqrt(np.maximum(v_num - 2 * ratio * cov + ratio**2 * v_den, 0.0)) / np.abs(den)
        # (den^2 - z^2 V_a) R^2 - 2 (num den - z^2 C) R + (num^2 - z^2 V_ab) = 0
        qa, qb, qc = den**2 - z2 * v_den, num * den - z2 * cov, num**2 - z2 * v_num
        root = np.sqrt(np.maximum(qb**2 - qa * qc, 0.0))
        bounded = den > np.sqrt(z2 * v_den)
        low = np.where(bounded, (qb - root) / qa, 0.0)
        high = np.where(bounded, (qb + root) / qa, 1.0)
    return Conditional(given=given, estimate=_table(ratio), std_error=_table(se),
                       ci_low=_table(np.clip(low, 0.0, 1.0)), ci_high=_table(np.clip(high, 0.0, 1.0)),
                       bounded=tuple(bool(x) for x in bounded[:, 0]), confidence=confidence)


def cell_variance(a: Mechanism, b: Mechanism, pi_ab: float, pi_a: float, pi_b: float) -> float:
    """n Var(pi_hat_ab) = E[s_a^2 s_b^2] - pi_ab^2 for a population with these fractions, using
    l_a = q_A + g_A pi_a, l_b = q_B + g_B pi_b, l_ab = q_A q_B + q_A g_B pi_b + g_A q_B pi_a + g_A g_B pi_ab.

    >>> from ldp import Direct
    >>> cell_variance(Direct(2), Direct(3), 0.5, 0.5, 0.5)
    0.25
    """
    return float(cell_variances(a, b, pi_ab, pi_a, pi_b))


def cell_variances(a: Mechanism, b: Mechanism, pi_ab: npt.ArrayLike, pi_a: npt.ArrayLike,
                   pi_b: npt.ArrayLike) -> FloatArray:
    """`cell_variance` for arrays of fractions (broadcast together)."""
    qa, ga, qb, gb = a.q_other, a.p - a.q_other, b.q_other, b.p - b.q_other
    t, fa, fb = (np.asarray(x, dtype=float) for x in (pi_ab, pi_a, pi_b))
    la, lb = qa + ga * fa, qb + gb * fb
    lab = qa * qb + qa * gb * fb + ga * qb * fa + ga * gb * t
    ua, ub = 1.0 - 2.0 * qa, 1.0 - 2.0 * qb
    square = (ua * ub * lab + ua * qb**2 * la + qa**2 * ub * lb + qa**2 * qb**2) / (ga * gb) ** 2
    return np.asarray(square - t**2, dtype=float)


def _table(values: npt.ArrayLike) -> Table:
    return tuple(_floats(row) for row in np.asarray(values, dtype=float))


def _floats(values: npt.ArrayLike) -> tuple[float, ...]:
    return tuple(float(x) for x in np.asarray(values, dtype=float).reshape(-1))


def _lists(value: object) -> object:
    if isinstance(value, tuple):
        return [_lists(v) for v in value]
    return value


__all__ = ["Conditional", "JointCounts", "JointEstimate", "cell_variance", "cell_variances", "covariance",
           "estimate_conditional", "estimate_joint"]

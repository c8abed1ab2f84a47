"""Sample sizes and margins: how many respondents a question needs.

The half-width of the normal interval is m = z sqrt(lambda (1 - lambda) / n) / (p - q), so
n = z^2 lambda (1 - lambda) / (m^2 (p - q)^2); the worst case lambda = 1/2 gives
n = z^2 / (4 m^2 (p - q)^2).

A joint cell (answer a to A and b to B, `ldp.joint.tables`) is the mean of products of scores, so
n = z^2 Var(s_a s_b) / m^2 (`joint_respondents_needed`): its variance scales with
1 / (p_A - q_A)^2 (p_B - q_B)^2, the price of privacy of both questions at once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..joint.tables import cell_variance, cell_variances
from ..means.numeric import worst_mean_variance
from ..mechanisms.grid import GridMechanism
from ..mechanisms.registry import KaryRR, Mechanism, OptimizedUnary
from ..stats.intervals import z_value


def _report_rate(mechanism: Mechanism, expected: float | None) -> float:
    if expected is None:
        return 0.5
    if not (0.0 <= expected <= 1.0):
        raise ValueError("expected fraction must lie in [0, 1]")
    return mechanism.q_other + expected * (mechanism.p - mechanism.q_other)


def respondents_needed(mechanism: Mechanism, margin: float, confidence: float = 0.95,
                       expected: float | None = None) -> int:
    """Smallest n whose interval half-width is at most `margin` (worst case unless `expected`)."""
    if not (0.0 < margin < 1.0):
        raise ValueError("margin must lie strictly between 0 and 1")
    lam = _report_rate(mechanism, expected)
    z = z_value(confidence)
    gap = mechanism.p - mechanism.q_other
    return math.ceil(z * z * lam * (1.0 - lam) / (margin * margin * gap * gap))


def margin_at(mechanism: Mechanism, n: int, confidence: float = 0.95,
              expected: float | None = None) -> float:
    """Half-width of the interval reached with n reports (worst case unless `expected`)."""
    if n <= 0:
        return math.inf
    lam = _report_rate(mechanism, expected)
    gap = mechanism.p - mechanism.q_other
    return z_value(confidence) * math.sqrt(lam * (1.0 - lam) / n) / gap


def joint_respondents_needed(a: Mechanism, b: Mechanism, margin: float, confidence: float = 0.95,
                             expected: tuple[float, float, float] | None = None) -> int:
    """Smallest n whose normal half-width for a joint cell pi_ab is at most `margin`:
    n = z^2 Var(s_a s_b) / m^2 (`ldp.joint.tables.cell_variance`), at `expected` = (pi_ab, pi_a, pi_b)
    or else at the worst table. The variance is linear in (pi_a, pi_b) for a fixed pi_ab = t, so
    the worst case is at a vertex (t, t), (1, t), (t, 1) of the feasible set, for t on a fine grid.

    Two direct questions give the one-question worst case z^2 / (4 m^2):

    >>> from ldp import Direct, QRandomizedResponse
    >>> joint_respondents_needed(Direct(2), Direct(3), 0.05), respondents_needed(Direct(2), 0.05)
    (385, 385)
    >>> qrr = QRandomizedResponse("0.5")
    >>> joint_respondents_needed(qrr, qrr, 0.05), joint_respondents_needed(qrr, qrr, 0.05, expected=(0.1, 0.3, 0.3))
    (3194, 1695)
    """
    if not (0.0 < margin < 1.0):
        raise ValueError("margin must lie strictly between 0 and 1")
    z = z_value(confidence)
    if expected is not None:
        pi_ab, pi_a, pi_b = expected
        if not (0.0 <= pi_ab <= min(pi_a, pi_b) and max(pi_a, pi_b) <= 1.0 and pi_a + pi_b - pi_ab <= 1.0):
            raise ValueError("expected must be fractions (pi_ab, pi_a, pi_b) of one table: "
                             "0 <= pi_ab <= pi_a, pi_b and pi_a + pi_b - pi_ab <= 1")
        variance = cell_variance(a, b, pi_ab, pi_a, pi_b)
    else:
        t = np.linspace(0.0, 1.0, 2001)
        ones = np.ones_like(t)
        variance = max(float(np.max(cell_variances(a, b, t, pa, pb))) for pa, pb in ((t, t), (ones, t), (t, ones)))
    return math.ceil(z * z * variance / (margin * margin))


def mean_respondents_needed(mechanism: Mechanism, margin: float, confidence: float = 0.95) -> int:
    """Smallest n whose normal half-width for a numeric question's mean is at most `margin` (in the
    question's units), whatever the respondents' values: n = z^2 V / m^2 with V the worst-case variance per
    report (`ldp.means.numeric.worst_mean_variance`: (hi - lo)^2 / (4 (p - q)^2) for the 1-bit mean,
    (hi - lo)^2 / 4 + step^2 Var(Z) for discrete Laplace).

    >>> from ldp import DiscreteLaplace, OneBitMean
    >>> mean_respondents_needed(OneBitMean(1.0, "0", "10", "1"), 0.5), mean_respondents_needed(
    ...     DiscreteLaplace(1.0, "0", "10", "1"), 0.5)
    (1799, 3455)
    """
    if not isinstance(mechanism, GridMechanism):
        raise ValueError(f"{mechanism.name} does not estimate a mean: use respondents_needed")
    if not (margin > 0 and math.isfinite(margin)):
        raise ValueError("margin must be a positive number (in the question's units)")
    z = z_value(confidence)
    return math.ceil(z * z * worst_mean_variance(mechanism) / (margin * margin))


def advise(k: int, epsilon: float) -> dict[str, Any]:
    """Which of k-ary RR and OUE estimates k options at `epsilon` with lower variance.

    Compared at a rare option (pi_j -> 0, lambda = q), as in Wang et al. 2017:
    n Var = q (1 - q) / (p - q)^2, i.e. (e^eps + k - 2) / (e^eps - 1)^2 for k-RR and
    4 e^eps / (e^eps - 1)^2 for OUE. k-RR wins when k < 3 e^eps + 2.
    """
    variances: dict[str, float] = {}
    for mechanism in (KaryRR(epsilon, k), OptimizedUnary(epsilon, k)):
        variances[mechanism.name] = float(mechanism.variance(0.0, 1))
    best = min(variances, key=variances.__getitem__)
    return {"k": k, "epsilon": epsilon, "variance_per_respondent": variances, "recommended": best}

"""Sample sizes and margins: how many respondents a question needs.

The half-width of the normal interval is m = z sqrt(lambda (1 - lambda) / n) / (p - q), so
n = z^2 lambda (1 - lambda) / (m^2 (p - q)^2); the worst case lambda = 1/2 gives
n = z^2 / (4 m^2 (p - q)^2).
"""

from __future__ import annotations

import math
from typing import Any

from .intervals import z_value
from .mechanisms import KaryRR, Mechanism, OptimizedUnary


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

"""A report rate's intervals (Wilson's with continuity correction, Clopper-Pearson's), Student t's quantile and
the planner's respondents needed (the dashboard's rule for too few)."""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

from .header import MEAN_VARIANCE
from .shapes import Question
from .tails import beta_quantile, regularized_beta


def respondents_needed(q: Question, margin: float, level: float) -> int:
    """The planner's respondents for `margin` at `level`, worst case (the dashboard's rule for too few)."""
    z = NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)
    if q["key"] in MEAN_VARIANCE:
        scale = q["scale"]
        units = margin * float(Fraction(scale["hi"]) - Fraction(scale["lo"]))
        return math.ceil(z * z * MEAN_VARIANCE[q["key"]] / (units * units))
    gap = float(Fraction(q["mechanism"]["p_exact"])) - float(Fraction(q["mechanism"]["q_other_exact"]))
    return math.ceil(z * z * 0.25 / (margin * margin * gap * gap))


def wilson(x: float, n: float, level: float) -> tuple[float, float]:
    """Wilson score interval with continuity correction (Newcombe 1998, method 4) for x of n."""
    z = NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)
    z2 = z * z
    r = x / n
    base, scale = 2.0 * n * r + z2, 2.0 * (n + z2)
    low = 0.0
    if x > 0:
        low = (base - 1.0 - z * math.sqrt(max(0.0, z2 - 2.0 - 1.0 / n + 4.0 * r * (n * (1.0 - r) + 1.0)))) / scale
    high = 1.0
    if x < n:
        high = (base + 1.0 + z * math.sqrt(max(0.0, z2 + 2.0 - 1.0 / n + 4.0 * r * (n * (1.0 - r) - 1.0)))) / scale
    return max(0.0, low), min(1.0, high)


def clopper_pearson(x: int, n: int, level: float) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for x of n: beta quantiles by bisection."""
    alpha = 1.0 - level
    low = 0.0 if x == 0 else beta_quantile(alpha / 2.0, x, n - x + 1)
    high = 1.0 if x == n else beta_quantile(1.0 - alpha / 2.0, x + 1, n - x)
    return low, high


def t_value(level: float, df: float) -> float:
    """Two-sided Student t quantile: P(|T| > t) = 1 - level, by bisection on I_{df / (df + t^2)}(df / 2, 1 / 2)."""
    alpha = 1.0 - level

    def tail(t: float) -> float:
        return regularized_beta(df / (df + t * t), df / 2.0, 0.5)

    lo, hi = 0.0, 2.0
    while tail(hi) > alpha:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if tail(mid) > alpha else (lo, mid)
        if hi - lo < 1e-12 * hi:
            break
    return (lo + hi) / 2.0

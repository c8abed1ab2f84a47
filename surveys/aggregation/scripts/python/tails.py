"""The tails and quantiles the intervals and tests need, in the standard library alone: the regularized
incomplete beta (Student t, F, Clopper-Pearson) and gamma (chi-square) functions."""

from __future__ import annotations

import math

from .shapes import Array


def beta_quantile(prob: float, a: float, b: float) -> float:
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if regularized_beta(mid, a, b) < prob:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return (lo + hi) / 2.0


def regularized_beta(t: float, a: float, b: float) -> float:
    """I_t(a, b) by Lentz's continued fraction."""
    if t <= 0.0:
        return 0.0
    if t >= 1.0:
        return 1.0
    front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(t) + b * math.log1p(-t)
    if t < (a + 1.0) / (a + b + 2.0):
        return math.exp(front) * beta_fraction(t, a, b) / a
    return 1.0 - math.exp(front) * beta_fraction(1.0 - t, b, a) / b


def beta_fraction(t: float, a: float, b: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * t / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        for numerator in (m * (b - m) * t / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * t / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def f_sf(x: float, d1: float, d2: float) -> float:
    """P(F >= x) for F ~ F(d1, d2): I_{d2 / (d2 + d1 x)}(d2 / 2, d1 / 2); 1 for x <= 0."""
    return 1.0 if x <= 0.0 else regularized_beta(d2 / (d2 + d1 * x), d2 / 2.0, d1 / 2.0)


def two_sided(z: Array) -> list[float]:
    """Each term's two-sided p-value, 2 Phi(-|z|)."""
    return [math.erfc(abs(v) / math.sqrt(2.0)) for v in z]


def t_two_sided(t: Array, df: int) -> list[float]:
    """Each term's two-sided p-value from Student's t with df degrees of freedom: I_{df / (df + t^2)}(df / 2, 1 / 2)."""
    return [regularized_beta(df / (df + v * v), df / 2.0, 0.5) if math.isfinite(v) else 0.0 for v in t]


def chi2_sf(x: float, df: float) -> float:
    """P(X >= x) for X ~ chi-square(df): the regularized upper incomplete gamma Q(df / 2, x / 2); 1 for df = 0."""
    if df <= 0 or x <= 0.0:
        return 1.0
    s, t = df / 2.0, x / 2.0
    front = math.exp(-t + s * math.log(t) - math.lgamma(s))
    if t < s + 1.0:  # P(s, t) by its series, Q = 1 - P
        term = total = 1.0 / s
        shape = s
        while term > total * 1e-17:
            shape += 1.0
            term *= t / shape
            total += term
        return max(0.0, 1.0 - front * total)
    tiny = 1e-300  # Q(s, t) by its continued fraction (Lentz)
    b = t + 1.0 - s
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 100_000):
        a = -i * (i - s)
        b += 2.0
        d = a * d + b
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = b + a / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return front * h

"""Intervals valid however often you look (--interval anytime): the beta-binomial mixture confidence sequence of a
report rate and discrete Laplace's mixture of Laplace-Hoeffding supermartingales."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .shapes import Array, Counts, Question


def sequence_low(ones: int, n: int, alpha: float, planned: int) -> float:
    """The low end of the confidence sequence of a report rate at n reports with `ones` of them 1: where
    ln M_n(lambda0) crosses ln(1 / alpha) below ones / n, by bisection in ln(lambda0), the rejected side kept."""
    if ones == 0:
        return 0.0
    c = -2.0 * math.log(alpha) + math.log(1.0 - 2.0 * math.log(alpha))
    s = max(planned / c - 1.0, 1.0)
    threshold = math.log(1.0 / alpha)

    def excess(u: float) -> float:
        lam = math.exp(u)
        a, b = s * lam, s * (1.0 - lam)
        return (math.lgamma(a + ones) + math.lgamma(b + n - ones) - math.lgamma(a) - math.lgamma(b)
                - math.lgamma(s + n) + math.lgamma(s) - ones * u - (n - ones) * math.log1p(-lam)) - threshold

    inside, outside = math.log(min(max(ones / n, 1e-300), 1.0 - 1e-15)), math.log(1e-300)
    if excess(outside) < 0:
        return math.exp(outside)
    for _ in range(200):
        middle = (inside + outside) / 2.0
        if middle in (inside, outside):
            break
        inside, outside = (inside, middle) if excess(middle) >= 0 else (middle, outside)
    return math.exp(outside)


def sequence(ones: int, n: int, alpha: float, planned: int) -> tuple[float, float]:
    """(low, high) of a report rate's confidence sequence at n reports; the high end mirrors the low one."""
    return sequence_low(ones, n, alpha, planned), 1.0 - sequence_low(n - ones, n, alpha, planned)


def anytime_level(k: int, bits: bool, confidence: float) -> float:
    """Each of a question's k intervals' own level, all holding together at `confidence` (one stream for yes/no)."""
    return 1.0 - (1.0 - confidence) / (1 if not bits and k == 2 else k)


def anytime_fractions(counts: Counts, n: int, p: float, q: float, bits: bool, confidence: float,
                      planned: int) -> tuple[Array, Array, float]:
    """Each option's interval valid at any time (mapped, clipped), and each interval's own level."""
    k = len(counts)
    streams = 1 if not bits and k == 2 else k
    alpha = 1.0 - anytime_level(k, bits, confidence)
    if n == 0:
        return np.zeros(k), np.ones(k), 1.0 - alpha
    if streams == 1:  # one stream and its mirror image
        low1, high1 = sequence(counts[1], n, alpha, planned)
        ends = np.array([[1.0 - high1, 1.0 - low1], [low1, high1]])
    else:
        ends = np.array([sequence(c, n, alpha, planned) for c in counts])
    mapped = np.clip((ends - q) / (p - q), 0.0, 1.0)
    return mapped[:, 0], mapped[:, 1], 1.0 - alpha


def laplace_sequence(q: Question, values: dict[int, int], n: int, confidence: float,
                     planned: int) -> tuple[float, float]:
    """(ci_low, ci_high) of a discrete Laplace mean valid at any time, from how often each report r occurred: the
    mixture of 32 Laplace-Hoeffding supermartingales (Waudby-Smith, Wu & Ramdas 2023), as the dashboard's."""
    m, scale = q["mechanism"], q["scale"]
    lo, step = float(Fraction(scale["lo"])), float(Fraction(scale["step"]))
    steps, bound = m["steps"], m["bound"]
    t_num, s_den = (int(x) for x in m["scale_exact"].split("/"))
    a = math.exp(-s_den / t_num)
    alpha = 1.0 - confidence
    c = -2.0 * math.log(alpha) + math.log(1.0 - 2.0 * math.log(alpha))
    noise = 1.0 / (2.0 * math.sinh(s_den / (2.0 * t_num)) ** 2)
    rho = math.sqrt(c / (planned * (steps ** 2 / 4.0 + noise)))
    top = min(6.0 * rho, 0.95 * s_den / t_num)
    half = top * np.arange(1, 17) / 16
    eta = np.concatenate([-half[::-1], half])
    log_w = -(eta ** 2) / (2.0 * rho ** 2)
    log_w -= np.log(np.exp(log_w).sum())
    psi = (eta ** 2 * steps ** 2 / 8.0 + 2.0 * math.log1p(-a) - np.log1p(-a * np.exp(eta))
           - np.log1p(-a * np.exp(-eta)) + math.log1p(2.0 ** -60))
    total = float(sum(r * count for r, count in values.items()))
    threshold = math.log(1.0 / alpha)

    def excess(mu: float) -> float:
        exponent = log_w + eta * (total - n * mu) - n * psi
        peak = exponent.max()
        return peak + math.log(np.exp(exponent - peak).sum()) - threshold

    def end(inside: float, outside: float) -> float:  # ln M is convex in mu and below the threshold at the mean report
        if excess(outside) < 0:
            return outside
        for _ in range(200):
            middle = (inside + outside) / 2.0
            if middle in (inside, outside):
                break
            inside, outside = (inside, middle) if excess(middle) >= 0 else (middle, outside)
        return outside

    centre, reach = total / n, float(steps + 2 * bound + 1)
    low, high = end(centre, centre - reach), end(centre, centre + reach)
    return lo + step * min(max(low, 0), steps), lo + step * min(max(high, 0), steps)

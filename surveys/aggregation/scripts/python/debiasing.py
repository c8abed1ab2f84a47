"""Debiasing: a question's estimates, standard errors and intervals through its exact channel, and the means (a
1-bit mean, discrete Laplace, a number sent as given, an ordinal question's mean score)."""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from .intervals import clopper_pearson, t_value, wilson
from .shapes import Array, Counts, Figures, Question


def debias(counts: Counts | Array, n: int, p: float, q: float, confidence: float, interval: str,
           simultaneous: bool) -> tuple[Array, Array, Array, Array, float]:
    """Estimates, standard errors and intervals of one question (numpy arrays, one entry per option)."""
    counts = np.asarray(counts, dtype=np.int64)
    k = counts.size
    level = 1.0 - (1.0 - confidence) / k if simultaneous else confidence
    gap = p - q
    if n == 0:
        nan = np.full(k, np.nan)
        return nan, nan, np.zeros(k), np.ones(k), level
    lam = counts / n
    estimate = (lam - q) / gap
    z2 = NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0) ** 2
    centre = (counts + z2 / 2.0) / (n + z2)  # at a count of 0 or n the plug-in is 0: the Wilson-centred one
    edge = (counts == 0) | (counts == n)
    std_error = np.where(edge, np.sqrt(centre * (1.0 - centre) / (n + z2)), np.sqrt(lam * (1.0 - lam) / n)) / gap
    method = clopper_pearson if interval == "exact" else wilson
    bounds = np.array([method(int(c), n, level) for c in counts])
    low = np.clip((bounds[:, 0] - q) / gap, 0.0, 1.0)
    high = np.clip((bounds[:, 1] - q) / gap, 0.0, 1.0)
    return estimate, std_error, low, high, level


def onebit_mean(q: Question, counts: Counts, n: int, confidence: float) -> Figures:
    """(mean, std_error, ci_low, ci_high) of a 1-bit mean from the reports of 0 and of 1."""
    m, scale = q["mechanism"], q["scale"]
    lo, hi = float(Fraction(scale["lo"])), float(Fraction(scale["hi"]))
    if n == 0:
        return math.nan, math.nan, lo, hi
    width = float(Fraction(scale["hi"]) - Fraction(scale["lo"]))
    p, q_other = float(Fraction(m["p_exact"])), float(Fraction(m["q_other_exact"]))
    ones = counts[1]
    lam, gap = ones / n, p - q_other
    mean = lo + width * (lam - q_other) / gap
    std_error = width * math.sqrt(lam * (1.0 - lam) / n) / gap
    low, high = (lo + width * (b - q_other) / gap for b in wilson(ones, n, confidence))
    return mean, std_error, min(max(low, lo), hi), min(max(high, lo), hi)


def dlaplace_mean(q: Question, values: dict[int, int], n: int, confidence: float) -> Figures:
    """(mean, std_error, ci_low, ci_high) of discrete Laplace from how often each report r occurred."""
    m, scale = q["mechanism"], q["scale"]
    lo, hi, step = (float(Fraction(scale[name])) for name in ("lo", "hi", "step"))
    if n == 0:
        return math.nan, math.nan, lo, hi
    r = np.array(sorted(values), dtype=float)
    c = np.array([values[v] for v in sorted(values)], dtype=np.int64)
    mean = float(c @ r) / n
    noise = m["noise_variance"]
    spread = float(c @ (r - mean) ** 2) / (n - 1) if n > 1 else noise + m["steps"] ** 2 / 4.0
    std_error = step * math.sqrt(max(spread, noise) / n)
    center = lo + step * mean
    half = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0) * std_error
    return center, std_error, min(max(center - half, lo), hi), min(max(center + half, lo), hi)


def direct_mean(q: Question, values: dict[int, int], n: int, confidence: float) -> Figures:
    """(mean, std_error, ci_low, ci_high) of a number sent as given (not randomized) from how often each grid
    index i occurred: the exact mean of lo + step i, its Student t interval with n - 1 degrees of freedom."""
    scale = q["scale"]
    lo, hi, step = (Fraction(scale[name]) for name in ("lo", "hi", "step"))
    if n == 0:
        return math.nan, math.nan, float(lo), float(hi)
    total = sum(c * i for i, c in values.items())
    center = float(lo + step * Fraction(total, n))
    if n == 1:
        return center, math.nan, float(lo), float(hi)
    squares = sum(c * i * i for i, c in values.items())
    std_error = float(step) * math.sqrt(Fraction(n * squares - total * total, n * (n - 1)) / n)
    half = t_value(confidence, n - 1) * std_error
    low, high = float(lo), float(hi)
    return center, std_error, min(max(center - half, low), high), min(max(center + half, low), high)


def project_to_simplex(v: Array) -> Array:
    """Euclidean projection onto {x >= 0, sum x = 1} (sort-based; Duchi et al. 2008)."""
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    rho = np.nonzero(u - cumulative / np.arange(1, v.size + 1) > 0)[0][-1]
    return np.maximum(v - cumulative[rho] / (rho + 1), 0.0)


def score_mean(pi_hat: Array | None, n: int, p: float, q_other: float, bits: bool, scores: list[float],
               confidence: float) -> Figures:
    """sum_j v_j pi_hat_j with its standard error and Student t interval (every level scored)."""
    v = np.asarray(scores, dtype=float)
    low, high = float(v.min()), float(v.max())
    if n == 0:
        return math.nan, math.nan, low, high
    assert pi_hat is not None  # given whenever there are reports
    mean = float(v @ pi_hat)
    if n == 1:
        return mean, math.nan, low, high
    gap = p - q_other
    lam = q_other + gap * project_to_simplex(pi_hat)
    # The covariance of one report's slots: unary bits are independent given the answer.
    sigma = -np.outer(lam - q_other, lam - q_other) if bits else -np.outer(lam, lam)
    np.fill_diagonal(sigma, lam * (1.0 - lam))
    variance = max(0.0, float(v @ sigma @ v)) / (n * gap * gap)
    std_error = math.sqrt(variance * n / (n - 1))
    half = t_value(confidence, n - 1) * std_error
    return mean, std_error, min(max(mean - half, low), high), max(min(mean + half, high), low)


def mean_score(q: Question, pi_hat: Array | None, n: int, p: float, q_other: float, confidence: float) -> Figures:
    """The mean score over the levels with a score; a level without one is left out (the ratio R)."""
    bits = q["report"]["encoding"] == "bits"
    scored = [s is not None for s in q["scores"]]
    scores = [float(Fraction(s)) if s is not None else 0.0 for s in q["scores"]]
    if all(scored):
        return score_mean(pi_hat, n, p, q_other, bits, scores, confidence)
    kept = [s for s, on in zip(scores, scored) if on]
    low, high = min(kept), max(kept)
    if n == 0:
        return math.nan, math.nan, low, high
    assert pi_hat is not None  # given whenever there are reports
    share = float(pi_hat[np.asarray(scored)].sum())
    if not share > 0:
        return math.nan, math.nan, low, high
    ratio = float(np.asarray(scores) @ pi_hat) / share
    if n == 1:
        return ratio, math.nan, low, high
    linear = [s - ratio if on else 0.0 for s, on in zip(scores, scored)]
    std_error = score_mean(pi_hat, n, p, q_other, bits, linear, confidence)[1] / share
    half = t_value(confidence, n - 1) * std_error
    return ratio, std_error, min(max(ratio - half, low), high), max(min(ratio + half, high), low)

"""The sums behind `shuffle.delta_of`, in floats: the window of C ~ Bin(N, p) outside which its tails are
negligible (Chernoff), and sum over that window of P(C = c) D_c with D_c = u F_c(t) - v F_c(t - 1), F_c the
Bin(c, 1/2) distribution function and t the largest integer below beta (c + 1), beta = u / (u + v) <= 1/2.

F_c is carried from one c to the next (`Bin(c + 1, 1/2) = Bin(c, 1/2) + Bern(1/2)`, so
F_(c+1)(t) = F_c(t) - b_c(t) / 2, and t moves up by at most one), and summed afresh from its terms every
RESTART values of c, which bounds the rounding a long walk would gather (tests compare it with sums afresh
at every c).
"""

from __future__ import annotations

import math

LN2 = math.log(2.0)
RESTART = 128


def binomial_window(trials: int, log_p: float, tau: float) -> tuple[int, int, float]:
    """(low, high, tails): P(C < low) and P(C > high) are each at most tau by the Chernoff bound
    exp(-N KL(m / N || p)), and tails is the sum of those two bounds (0 where the window reaches the end)."""
    p = math.exp(log_p)
    mean = trials * p

    def bound(m: int) -> float:
        x = m / trials
        kl = _xlogy(x, x / p) + _xlogy(1 - x, (1 - x) / (1 - p))
        return math.exp(-trials * kl)

    low, tail_low = 0, 0.0
    if bound(0) <= tau:  # the largest m <= mean with P(C <= m) <= tau: the window starts after it
        good, bad = 0, max(0, math.floor(mean))
        while bad - good > 1:
            middle = (good + bad) // 2
            good, bad = (middle, bad) if bound(middle) <= tau else (good, middle)
        low, tail_low = good + 1, bound(good)
    high, tail_high = trials, 0.0
    if bound(trials) <= tau:  # the smallest m >= mean with P(C >= m) <= tau: the window ends before it
        bad, good = min(trials, math.ceil(mean)), trials
        while good - bad > 1:
            middle = (good + bad) // 2
            good, bad = (middle, bad) if bound(middle) <= tau else (good, middle)
        high, tail_high = good - 1, bound(good)
    return low, high, tail_low + tail_high


def divergence_sum(trials: int, log_p: float, low: int, high: int, u: float, v: float) -> float:
    """sum_{c = low..high} P(C = c) D_c (module docstring), C ~ Bin(trials, e^log_p)."""
    beta = u / (u + v)
    log_q = math.log(-math.expm1(log_p))
    head = math.lgamma(trials + 1)
    terms = []
    f_t = f_below = 0.0
    t = -1
    for c in range(low, high + 1):
        wanted = math.ceil(beta * (c + 1)) - 1
        if (c - low) % RESTART == 0:
            t, f_below = wanted, lower_tail(c, wanted - 1)
            f_t = f_below + _pmf(c, t)
        else:  # from c - 1: each F loses half its top term, then t may move up by one
            f_t, f_below = max(0.0, f_t - _pmf(c - 1, t) / 2), max(0.0, f_below - _pmf(c - 1, t - 1) / 2)
            if wanted > t:
                t, f_below = wanted, f_t
                f_t = f_below + _pmf(c, t)
        weight = math.exp(head - math.lgamma(c + 1) - math.lgamma(trials - c + 1) + c * log_p + (trials - c) * log_q)
        terms.append(weight * max(0.0, u * f_t - v * f_below))
    return math.fsum(terms)


def lower_tail(c: int, t: int) -> float:
    """F_c(t) = P(Bin(c, 1/2) <= t) for t <= c / 2, summed from t down; the terms fall at least geometrically
    (ratio a / (c - a + 1) < 1, falling with a), so what is left past a term below 1e-17 of the sum is at most
    term ratio / (1 - ratio), added."""
    if t < 0:
        return 0.0
    term = _pmf(c, t)
    total = 0.0
    a = t
    while a >= 0:
        total += term
        ratio = a / (c - a + 1)
        if term <= 1e-17 * total:
            return total + term * ratio / (1 - ratio)
        term *= ratio
        a -= 1
    return total


def _pmf(c: int, a: int) -> float:
    """P(Bin(c, 1/2) = a), 0 outside [0, c]."""
    if not 0 <= a <= c:
        return 0.0
    return math.exp(math.lgamma(c + 1) - math.lgamma(a + 1) - math.lgamma(c - a + 1) - c * LN2)


def _xlogy(x: float, y: float) -> float:
    return 0.0 if x == 0 else x * math.log(y)

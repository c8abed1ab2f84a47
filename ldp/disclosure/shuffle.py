"""The central privacy of releasing n randomized reports shuffled (no order, no other columns).

Feldman, McMillan & Talwar, "Hiding among the clones" (FOCS 2021), Theorem 3.2: the shuffled reports of n
eps0-LDP randomizers are (eps, delta)-DP if the pair

    P = (A + D, C - A + 1 - D),   Q = (A + 1 - D, C - A + D),
    C ~ Bin(n - 1, e^-eps0),  A ~ Bin(C, 1/2),  D ~ Bern(alpha),  alpha = e^eps0 / (e^eps0 + 1)

is (eps, delta)-indistinguishable. C is seen alike under both, so delta(eps) = E_C[D_C] with D_c the
hockey-stick divergence sum_a max(0, P_c(a) - e^eps Q_c(a)) given C = c, and P_c, Q_c are mirror images
(a <-> c + 1 - a), so one direction is both. With b the Bin(c, 1/2) probabilities and F its distribution
function, P_c(a) - e^eps Q_c(a) = u b(a) - v b(a - 1), u = alpha - e^eps (1 - alpha), v = e^eps alpha -
(1 - alpha), positive exactly for a < beta (c + 1), beta = u / (u + v), so

    D_c = u F_c(t) - v F_c(t - 1),   t the largest integer below beta (c + 1)

(their code's `onestep`). Their `numericalanalysis` bounds D_c over buckets of c by monotonicity; here
every c is summed (`walk`), over the c where Bin(n - 1, e^-eps0) keeps all but 2 tau of its mass (Chernoff:
the tails count whole, D_c <= 1), tau = delta 1e-7. A bisection over eps then finds the smallest eps with
delta(eps) <= delta, to 1e-5 relative, and returns its upper end: a valid bound, and no looser than theirs.
A delta costs O(sqrt(n)) terms and the bisection about 20 of them: 0.02 s of CPU at n = 10^4, 2 s at 10^6,
25 s at 10^8.
"""

from __future__ import annotations

import math

from .walk import binomial_window, divergence_sum

SLACK = 1e-6  # delta(eps) is taken 1e-6 (relative) larger than computed: floating point never makes it valid
TOLERANCE = 1e-5  # the bisection stops when its interval is this small relative to its upper end
EPSILON0_MAX = 100.0  # a record of many questions may cost tens; e^-100 clones are none


def default_delta(n: int) -> float:
    """The delta stated when the admin chooses none: min(1 / n^1.1, 1e-6).

    >>> default_delta(1000), f"{default_delta(10**6):.4g}"
    (1e-06, '2.512e-07')
    """
    return min(1.0 / math.pow(_count(n), 1.1), 1e-6)


def epsilon_c(epsilon0: float, n: int, delta: float) -> float:
    """The numerical bound: the smallest eps (to 1e-5 relative, rounded up) for which the shuffled release of
    n eps0-LDP reports is (eps, delta)-DP; at most epsilon0 (shuffling never costs privacy).

    >>> round(epsilon_c(4.0, 10**5, 1e-6), 4)
    0.1698
    """
    epsilon0, n, delta = _checked(epsilon0, n, delta)
    if n == 1:
        return epsilon0
    if delta_of(epsilon0, n, 0.0, delta) <= delta:  # P and Q are within delta in total variation: eps = 0
        return 0.0
    low, high = 0.0, min(epsilon0, closed_form(epsilon0, n, delta))
    if delta_of(epsilon0, n, high, delta) > delta:  # the closed form is valid; a float's last digit is not
        high = epsilon0
    while high - low > TOLERANCE * high:
        middle = (low + high) / 2
        if delta_of(epsilon0, n, middle, delta) <= delta:
            high = middle
        else:
            low = middle
    return high


def delta_of(epsilon0: float, n: int, epsilon: float, delta: float) -> float:
    """An upper bound on the delta at which n shuffled eps0-LDP reports are eps-DP (module docstring); the
    tails of C count whole up to delta 1e-7 each."""
    if epsilon >= epsilon0:
        return 0.0
    alpha = 1.0 / (1.0 + math.exp(-epsilon0))
    grow = math.exp(epsilon)
    u, v = alpha - grow * (1.0 - alpha), grow * alpha - (1.0 - alpha)
    low, high, tails = binomial_window(n - 1, -epsilon0, delta * 1e-7)
    return (divergence_sum(n - 1, -epsilon0, low, high, u, v) + tails) * (1.0 + SLACK)


def closed_form(epsilon0: float, n: int, delta: float) -> float:
    """Their Theorem 3.1, as their `closedformanalysis`: for eps0 <= ln(n / (16 ln(4 / delta))),
    ln(1 + (1 - e^-eps0) / (1 + e^(-eps0 - e)) (a + c)) with a = 8 sqrt(e^eps0 ln(4 / delta) / n),
    c = 8 e^eps0 / n, e = ln(1 + a + c); epsilon0 itself outside that regime.

    >>> round(closed_form(4.0, 10**5, 1e-6), 6)
    0.537804
    """
    epsilon0, n, delta = _checked(epsilon0, n, delta)
    if n < 2 or epsilon0 > math.log(n / (16 * math.log(4 / delta))):
        return epsilon0
    a = 8 * math.sqrt(math.exp(epsilon0) * math.log(4 / delta) / n)
    c = 8 * math.exp(epsilon0) / n
    e = math.log(1 + a + c)
    b = 1 - math.exp(-epsilon0)
    d = 1 + math.exp(-epsilon0 - e)
    return math.log(1 + (b / d) * (a + c))


def _count(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return n


def _checked(epsilon0: object, n: object, delta: object) -> tuple[float, int, float]:
    if isinstance(epsilon0, bool) or not isinstance(epsilon0, (int, float)) or not 0 < epsilon0 < EPSILON0_MAX:
        raise ValueError(f"epsilon0 must lie in (0, {EPSILON0_MAX:g}), got {epsilon0!r}")
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    return float(epsilon0), _count(n), float(delta)

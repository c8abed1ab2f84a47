"""Maximum likelihood of true-answer tables through exact channels, by EM (Dempster, Laird & Rubin 1977).

One variable with code counts h and channel C (codes x values), n = sum h:
    pi <- pi * C^T (h / (C pi)) / n.
A pair with the table R of code pairs (over the rows where both were answered) and the product channel
C_A (x) C_B, never formed: the predicted code table is C_A pi C_B^T, and
    pi <- pi * C_A^T (R / (C_A pi C_B^T)) C_B / n.
Each step raises the likelihood and keeps pi on the simplex; the fixed point is the maximum-likelihood table,
non-negative and summing to 1 where the debiased table need not be.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .questions import Variable

FloatArray = npt.NDArray[np.float64]
TOLERANCE = 1e-4  # the iterations end when a cycle gains less log-likelihood than this (nats)
ITERATIONS = 500


def one_way(variable: Variable, counts: FloatArray | None = None) -> FloatArray:
    """The maximum-likelihood distribution of the variable's values from its codes (or from its codes' `counts`,
    weighted ones say)."""
    if counts is None:
        counts = np.bincount(variable.codes[variable.present], minlength=variable.channel.shape[0]).astype(float)
    return table_em(counts[:, None], variable.channel, np.ones((1, 1)))[:, 0]


def table_em(counts: FloatArray, channel_a: FloatArray, channel_b: FloatArray,
             start: FloatArray | None = None) -> FloatArray:
    """The maximum-likelihood table of true values from a table of code counts (module docstring)."""
    n = counts.sum()
    shape = (channel_a.shape[1], channel_b.shape[1])
    if n == 0:
        return np.full(shape, 1.0 / (shape[0] * shape[1]))
    pi = np.full(shape, 1.0 / (shape[0] * shape[1])) if start is None else np.maximum(start, 1e-9)
    observed = counts > 0
    weights = counts[observed]

    def step(x: FloatArray) -> tuple[FloatArray, float]:
        predicted = channel_a @ x @ channel_b.T
        safe = np.where(observed, np.maximum(predicted, 1e-300), 1.0)
        loglik = float(weights @ np.log(safe[observed]))
        return x * (channel_a.T @ (np.where(observed, counts, 0.0) / safe) @ channel_b) / n, loglik

    found, _ = squarem(step, pi / pi.sum(), lambda x: x / x.sum(), TOLERANCE, ITERATIONS)
    return np.asarray(found / found.sum(), dtype=float)


def squarem(step: Callable[[FloatArray], tuple[FloatArray, float]], start: FloatArray,
            normalized: Callable[[FloatArray], FloatArray], tolerance: float,
            iterations: int) -> tuple[FloatArray, int]:
    """EM steps accelerated by SQUAREM (Varadhan & Roland 2008): from two steps r = F(x) - x and
    v = F(F(x)) - 2F(x) + x, the point x - 2a r + a^2 v with a = -|r| / |v| (at most -1), then one EM step from it
    to stay monotone; where that point leaves the parameters' simplexes or lowers the likelihood, the plain step
    F(F(x)) is kept. `step` returns F(x) and the log-likelihood at x; the iterations end when a cycle gains less
    than `tolerance` in log-likelihood (nats: far below what a test of the fit could see). Returns the parameters
    and the cycles made."""
    x, last = start, -np.inf
    for done in range(1, iterations + 1):
        first, loglik = step(x)
        second, _ = step(first)
        r, v = first - x, second - 2.0 * first + x
        size_v = np.sqrt((v * v).sum())
        alpha = -1.0 if size_v == 0 else min(-1.0, -np.sqrt((r * r).sum()) / size_v)
        jump = x - 2.0 * alpha * r + alpha * alpha * v
        candidate = second
        if (jump >= 0).all():
            landed, landed_loglik = step(normalized(jump))
            if landed_loglik >= loglik:
                candidate = landed
        gain = loglik - last
        last, x = loglik, candidate
        if gain < tolerance:
            return x, done
    return x, iterations

"""The log-likelihood of reports through a known binary channel, and its derivatives, at a coefficient vector.

With P_i = q + (p - q) s(x_i'b), s the logistic function, eta = x'b, s' = s (1 - s), dP = (p - q) s' and
d2P = (p - q) s' (1 - 2s):

    l(b)  = sum_i w_i [y_i log P_i + (1 - y_i) log(1 - P_i)]
    score = sum_i w_i g_i x_i,   g_i = (y_i - P_i) / (P_i (1 - P_i)) dP_i
    -d2l  = sum_i w_i x_i x_i' [(y_i / P_i^2 + (1 - y_i) / (1 - P_i)^2) dP_i^2 - (y_i - P_i) / (P_i (1 - P_i)) d2P_i]

(w_i = 1 unless weighted); the Fisher information sum_i w_i x_i x_i' dP_i^2 / (P_i (1 - P_i)) on request.
`ldp.regression.logistic` fits the model with them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass
class Point:
    """The likelihood and its derivatives at b (the Fisher information only when asked for)."""

    b: FloatArray
    loglik: float
    score: FloatArray  # per row g_i
    gradient: FloatArray
    observed: FloatArray  # -d2l
    model: Model

    def fisher(self) -> FloatArray:
        _, s, one_minus, prob = self.model.probabilities(self.b)
        dp = self.model.gap * s * one_minus
        return self.model.gram(dp * dp / (prob * (1.0 - prob)))


class Model:
    def __init__(self, y: FloatArray, x: FloatArray, p: float, q: float, w: FloatArray | None) -> None:
        self.y, self.x, self.p, self.q, self.w = y, x, p, q, w
        self.gap = p - q
        self.ones = y > 0
        self.last: tuple[FloatArray, tuple[FloatArray, FloatArray, FloatArray, FloatArray]] | None = None

    def probabilities(self, b: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """eta, s, 1 - s (accurate where s is near 1) and P; the last b's are kept (the step's likelihood
        and the next point's derivatives are at the same b)."""
        if self.last is not None and np.array_equal(self.last[0], b):
            return self.last[1]
        found = self._probabilities(b)
        self.last = (b.copy(), found)
        return found

    def _probabilities(self, b: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        eta = self.x @ b
        e = np.exp(-np.clip(eta, -700.0, 700.0))
        s = 1.0 / (1.0 + e)
        one_minus = e * s
        return eta, s, one_minus, self.q + self.gap * s

    def loglik(self, b: FloatArray) -> float:
        _, _, _, prob = self.probabilities(b)
        with np.errstate(divide="ignore"):  # P at 0 or 1 (a direct question): -inf, refused by the step
            return self.total(np.where(self.ones, np.log(prob), np.log1p(-prob)))

    def total(self, terms: FloatArray) -> float:
        return float(terms.sum() if self.w is None else self.w @ terms)

    def gram(self, weights: FloatArray) -> FloatArray:
        return gram(self.x, weights if self.w is None else self.w * weights)

    def point(self, b: FloatArray) -> Point:
        with np.errstate(divide="ignore", invalid="ignore"):  # at infinity (separation): reported, not warned
            return self._point(b)

    def _point(self, b: FloatArray) -> Point:
        _, s, one_minus, prob = self.probabilities(b)
        y = self.y
        rest = 1.0 - prob
        terms = np.where(self.ones, np.log(prob), np.log1p(-prob))
        dp = self.gap * s * one_minus
        resid = (y - prob) / (prob * rest)
        g = resid * dp
        # -(d2 l_i / d eta^2) = (y/P^2 + (1-y)/(1-P)^2) dP^2 - (y - P)/(P(1-P)) dP (1 - 2s)
        curvature = np.where(self.ones, 1.0 / prob**2, 1.0 / rest**2) * dp * dp + g * (s - one_minus)
        wg = g if self.w is None else self.w * g
        return Point(b=b, loglik=self.total(terms), score=g, gradient=self.x.T @ wg,
                      observed=self.gram(curvature), model=self)


def gram(x: FloatArray, weights: FloatArray) -> FloatArray:
    return np.asarray((x * weights[:, None]).T @ x, dtype=float)

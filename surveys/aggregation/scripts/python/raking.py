"""Weighting to population margins (--weighted): raking with the app's cap, and weighted means with their
variances by linearization through the raking."""

from __future__ import annotations

import math
import sys
from statistics import NormalDist
from typing import Any

import numpy as np

from .intervals import t_value, wilson
from .shapes import Array, Book, Columns, Figures, Question

RAKING_TOLERANCE, RAKING_ITERATIONS, CAP_ROUNDS = 1e-10, 2000, 50


def ipf(codes: list[Array], shares: list[Array], w: Array) -> tuple[Array, bool]:
    """Iterative proportional fitting of the weights w to every margin (codes, population shares)."""
    n = w.size
    for _ in range(RAKING_ITERATIONS):
        for c, t in zip(codes, shares):
            share = np.bincount(c, weights=w, minlength=t.size) / w.sum()
            w = w * (t / share)[c]
        w = w * (n / w.sum())
        gap = max(float(np.abs(np.bincount(c, weights=w, minlength=t.size) / n - t).max())
                  for c, t in zip(codes, shares))
        if gap <= RAKING_TOLERANCE:
            return w, True
    return w, False


def rake(codes: list[Array], shares: list[Array], cap: float) -> Array:
    """Raked weights, a weight above cap times the median capped and the weights raked again (the app's rule)."""
    w, converged = ipf(codes, shares, np.ones(codes[0].size))

    def excess(w: Array) -> float:
        return max(0.0, float(w.max() / np.median(w)) / cap - 1.0)

    best, rounds = excess(w), 0
    while best > 1e-9 and rounds < CAP_ROUNDS and converged:
        rounds += 1
        capped = np.minimum(w, cap * np.median(w))
        w, converged = ipf(codes, shares, capped * (w.size / capped.sum()))
        now = excess(w)
        if now > best * (1 - 1e-6):  # the cap and the margins do not hold together
            break
        best = now
    if not converged:
        print("warning: the raking did not converge", file=sys.stderr)
    return w


class Unweightable(SystemExit):
    """Responses that cannot be weighted (no margins, or none that the raking can meet): uncaught, it stops the
    script with its message as sys.exit does; --waves catches it to name the wave."""


class Weighted:
    """The weights of the responses that answer every margin question, and weighted means under them."""

    def __init__(self, columns: Columns, book: Book) -> None:
        described = book.get("weights")
        if not described:
            raise Unweightable("this survey has no population margins to weight to (the codebook has no \"weights\")")
        margins = described["margins"]
        self.margins = margins
        cells = [columns[m["question"]] for m in margins]
        self.kept = np.array([all(c[i] != "" for c in cells) for i in range(len(cells[0]))], dtype=bool)
        # left out: responses that answer some margin question but not every one (the app's count)
        some = np.array([any(c[i] != "" for c in cells) for i in range(len(cells[0]))], dtype=bool)
        self.left_out = int((some & ~self.kept).sum())
        if not self.kept.any():
            raise Unweightable("no response answers every margin question")
        self.codes, self.shares = [], []
        for m, column in zip(margins, cells):
            codes = np.array([int(c) for c, on in zip(column, self.kept) if on], dtype=np.int64)
            shares = np.array([s["share"] for s in sorted(m["shares"], key=lambda s: s["option_index"])])
            empty = [s["option"] for s in m["shares"] if not (codes == s["option_index"]).any()]
            if empty:
                raise Unweightable(f"{m['question']}: no respondents in the categories {empty}, which have a "
                                   "population share")
            self.codes.append(codes)
            self.shares.append(shares / shares.sum())
        self.w = rake(self.codes, self.shares, described["cap"])
        self.n = int(self.w.size)
        exported = columns.get(described["column"])
        if exported is not None:  # the export's weights: the same numbers, within the raking's tolerance
            given = np.array([float(c) for c, on in zip(exported, self.kept) if on])
            self.largest_difference = float(np.abs(given - self.w).max())
        # The margins' indicator columns, for the residuals of the linearization.
        self.z = np.hstack([np.eye(t.size)[c] for c, t in zip(self.codes, self.shares)])

    def mean(self, u: Any) -> tuple[Array, Array]:
        """Weighted means of the columns of u (n kept responses) and their linearization variances."""
        u = np.asarray(u, dtype=float).reshape(self.n, -1)
        w, z = self.w, self.z
        total = w.sum()
        beta = np.linalg.pinv(z.T @ (w[:, None] * z), rcond=1e-12) @ (z.T @ (w[:, None] * u))
        e = u - z @ beta
        variance = self.n / max(self.n - 1, 1) * ((w[:, None] * e) ** 2).sum(axis=0) / total ** 2
        return (w @ u) / total, variance

    def effective_n(self) -> float:
        return float(self.w.sum() ** 2 / (self.w @ self.w))

    def design_effect(self) -> float:
        """Kish's: n sum w^2 / (sum w)^2."""
        return float(self.n * (self.w @ self.w) / self.w.sum() ** 2)

    def reports(self, columns: Columns, q: Question) -> Array:
        """The question's reports of the weighted responses: (n,) integers, or (n, k) bits."""
        names = q["report"]["csv_columns"]
        cells = [[c for c, on in zip(columns[name], self.kept) if on] for name in names]
        if any(c == "" for column in cells for c in column):
            raise Unweightable(f"{q['key']} was not answered by every weighted response")
        values = np.array([[int(c) for c in column] for column in cells], dtype=np.int64).T
        return values if q["report"]["encoding"] == "bits" else values[:, 0]

    def fractions(self, y: Array, p: float, q_other: float, confidence: float) -> tuple[Array, Array, Array, Array]:
        """pi_w, its standard error and interval per option, from the (n, k) report indicators y."""
        lam, variance = self.mean(y)
        spreads = lam * (1.0 - lam)
        # A share the raking fixes (the question is a margin): its variance is rounding, taken as 0, and its
        # interval the estimate alone, however the rounding falls.
        variance = np.where(variance <= 1e-20 * spreads, 0.0, variance)
        gap = p - q_other
        low, high = [], []
        for rate, var, spread in zip(lam, variance, spreads):
            if var == 0 and spread > 0:
                bounds = (rate, rate)
            else:
                size = spread / var if var > 0 else self.effective_n()
                bounds = wilson(rate * size, size, confidence)
            low.append(min(max((bounds[0] - q_other) / gap, 0.0), 1.0))
            high.append(min(max((bounds[1] - q_other) / gap, 0.0), 1.0))
        return (lam - q_other) / gap, np.sqrt(variance) / gap, np.array(low), np.array(high)

    def normal_mean(self, u: Array, low: float, high: float, confidence: float, df: int | None = None) -> Figures:
        """The weighted mean of u, its standard error and its interval: normal, or Student t on df degrees of
        freedom (a number sent as given: n - 1, as the dashboard)."""
        mean, variance = self.mean(u)
        m, se = float(mean[0]), math.sqrt(float(variance[0]))
        quantile = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0) if df is None else t_value(confidence, df)
        half = quantile * se
        return m, se, min(max(m - half, low), high), min(max(m + half, low), high)

"""Weights to known population margins (raking), and the variance of a weighted mean under them.

**Raking** (iterative proportional fitting): start from w_i = 1 (or given base weights); for each
margin m in turn, multiply the weights of the rows in category c by T_mc / S_mc, where T_mc is the
population share of c and S_mc = sum_{i in c} w_i / sum_i w_i the current weighted sample share;
repeat until every weighted sample share is within `tolerance` of its target. The weights are scaled
to sum to n (mean 1).

**Capping**: a weight above `cap` times the median weight is set to that bound, and the weights are
raked again; this alternates (at most `CAP_ROUNDS` times) until the raked weights respect the cap.
The margins always hold exactly (the last step is a rake); when they cannot hold together with the
cap (a single margin, for one, has only one set of raked weights) the cap is reported as not met.

**What the weights cost**: Kish's design effect deff = n sum w^2 / (sum w)^2 = 1 + CV(w)^2 and the
effective sample size n / deff = (sum w)^2 / sum w^2.

**Variance of a weighted mean** u_w = sum w_i u_i / sum w_i by linearization. Raking solves
sum_i w_i z_i = n t (z_i the margins' indicator columns, t their target shares) with w_i =
exp(z_i' lambda); differentiating through lambda, the influence value of u_w is w_i e_i / sum w,
where e_i is the residual of the *w-weighted* least-squares regression of u on the indicator
columns (Deville and Sarndal 1992, with the raking function's derivative F' = F). So

    Var(u_w) = n / (n - 1) * sum_i w_i^2 e_i^2 / (sum_i w_i)^2.

With fixed weights (no margins) the regression is on the intercept alone and e_i = u_i - u_w; with
w_i = 1 this is s^2 / n, the sample variance over n. R's survey package gives the same number from
calibrate(..., calfun = "raking") on the raked weights (its greg_calibration residuals); its rake()
iterates unweighted residuals instead, a different (also consistent) approximation.

**Grouped rows**: `counts` says how many identical respondents each row stands for (the same category
on every margin, and whatever else the caller groups by). Every sum above is then a sum over rows of
count times the row's term, the median is the median of the rows repeated (`median`), and n is the
total count: the weights, their summary and the variances are those of the rows written out, with
sums added in another order. A model of millions of responses in a few thousand distinct rows is
raked and fitted at the cost of those rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..stats.row_counts import row_counts

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CAP_ROUNDS = 50
TOLERANCE = 1e-10
MAX_ITERATIONS = 2000


class RakingError(ValueError):
    """Margins that cannot be raked to (the message says which column and why)."""


@dataclass(frozen=True)
class Margin:
    """One categorical column: each row's category code, and the population share of each code."""

    name: str
    codes: IntArray
    shares: FloatArray
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Raked:
    """Weights and the margins they were raked to (none for fixed weights or none at all).

    >>> d = Raked.fixed([1.0, 1.0, 2.0, 4.0])
    >>> d.n, d.effective_n, round(d.design_effect, 4)
    (4, 2.909090909090909, 1.375)
    """

    weights: FloatArray
    margins: tuple[Margin, ...] = ()
    iterations: int = 0
    converged: bool = True
    cap: float | None = None
    cap_met: bool = True
    cap_rounds: int = 0
    messages: tuple[str, ...] = field(default=())
    counts: FloatArray | None = None  # how many respondents each row stands for (None: one each)

    @classmethod
    def fixed(cls, weights: npt.ArrayLike) -> Raked:
        w = np.asarray(weights, dtype=float).reshape(-1)
        if w.size == 0 or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError("weights must be positive finite numbers, at least one")
        return cls(weights=w)

    @classmethod
    def unweighted(cls, n: int) -> Raked:
        return cls(weights=np.ones(n))

    @property
    def n(self) -> int:
        """Respondents: the rows, or the sum of their counts."""
        return int(self.weights.size if self.counts is None else self.counts.sum())

    @property
    def mass(self) -> FloatArray:
        """Each row's weight times the respondents it stands for: what a weighted sum over respondents adds."""
        return self.weights if self.counts is None else self.weights * self.counts

    @property
    def design_effect(self) -> float:
        """Kish: n sum w^2 / (sum w)^2."""
        w = self.weights
        return float(self.n * np.dot(self.mass, w) / self.mass.sum() ** 2)

    @property
    def effective_n(self) -> float:
        """(sum w)^2 / sum w^2 = n / deff."""
        return float(self.mass.sum() ** 2 / np.dot(self.mass, self.weights))

    def summary(self) -> dict[str, Any]:
        """The weights' range (also as multiples of their median), Kish's design effect and effective n."""
        w = self.weights
        median = float(median_of(w, self.counts))
        return {"n": self.n, "min": float(w.min()), "max": float(w.max()), "median": median,
                "max_over_median": float(w.max() / median), "design_effect": self.design_effect,
                "effective_n": self.effective_n, "iterations": self.iterations, "converged": self.converged,
                "cap": self.cap, "cap_met": self.cap_met, "messages": list(self.messages)}

    def residuals(self, values: npt.ArrayLike) -> FloatArray:
        """e: the residuals of the w-weighted regression of each column of `values` on the margins'
        indicator columns (on the intercept alone without margins)."""
        u = np.asarray(values, dtype=float)
        column = u.ndim == 1
        u = u.reshape(u.shape[0], -1)
        w = self.mass
        if not self.margins:
            e = np.asarray(u - (w @ u) / w.sum(), dtype=float)
            return e[:, 0] if column else e
        offsets = np.cumsum([0] + [m.shares.size for m in self.margins])
        size = int(offsets[-1])
        gram = np.zeros((size, size))
        for a, ma in enumerate(self.margins):
            for b, mb in enumerate(self.margins):
                cross = np.bincount(ma.codes * mb.shares.size + mb.codes, weights=w,
                                    minlength=ma.shares.size * mb.shares.size)
                gram[offsets[a]:offsets[a + 1], offsets[b]:offsets[b + 1]] = cross.reshape(ma.shares.size, -1)
        moment = np.vstack([np.stack([np.bincount(m.codes, weights=w * u[:, j], minlength=m.shares.size)
                                      for j in range(u.shape[1])], axis=1) for m in self.margins])
        # The indicator columns of each margin add up to the intercept: the system is singular and
        # any solution gives the same fitted values, so the pseudo-inverse's will do.
        beta = np.linalg.pinv(gram, rcond=1e-12) @ moment
        fitted = sum(beta[offsets[i]:offsets[i + 1]][m.codes] for i, m in enumerate(self.margins))
        e = np.asarray(u - fitted, dtype=float)
        return e[:, 0] if column else e

    def mean(self, values: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        """The weighted mean of each column and its linearization variance (see the module docstring).

        >>> mean, variance = Raked.unweighted(4).mean([0.0, 1.0, 1.0, 0.0])
        >>> float(mean), round(float(variance), 6)
        (0.5, 0.083333)
        """
        u = np.asarray(values, dtype=float)
        w, mass = self.weights, self.mass
        total = mass.sum()
        mean = (mass @ u.reshape(u.shape[0], -1)) / total
        e = self.residuals(u).reshape(u.shape[0], -1)
        n = self.n
        spread = (w[:, None] * e) ** 2
        if self.counts is not None:
            spread = spread * self.counts[:, None]
        variance = n / max(n - 1, 1) * spread.sum(axis=0) / total**2
        shape = () if u.ndim == 1 else (-1,)
        return mean.reshape(shape), variance.reshape(shape)


def margin(name: str, column: Sequence[Any] | npt.ArrayLike, shares: Mapping[Any, float]) -> Margin:
    """A `Margin` from a column of category values and their population shares (summing to 1).

    Every value in the column must have a share, and every share a row: a population category
    with no respondents cannot be weighted up, and a share of 0 would give its rows weight 0.

    >>> m = margin("sex", ["f", "m", "f"], {"f": 0.5, "m": 0.5})
    >>> m.codes.tolist(), m.shares.tolist(), m.labels
    ([0, 1, 0], [0.5, 0.5], ('f', 'm'))
    """
    labels, values = _shares(name, shares)
    lookup = {label: code for code, label in enumerate(labels)}
    text = np.asarray(column).astype(str)
    found, inverse = np.unique(text, return_inverse=True)
    missing = [value for value in found.tolist() if value not in lookup]
    if missing:
        raise RakingError(f"{name}: no population share for the value(s) {missing[:5]}")
    codes = np.array([lookup[value] for value in found.tolist()], dtype=np.int64)[inverse.reshape(-1)]
    return _checked(name, codes, labels, values)


def coded_margin(name: str, codes: npt.ArrayLike, shares: Mapping[Any, float]) -> Margin:
    """`margin` of a column already coded: code j is the category of the j-th share (no text made per row, for
    columns of millions). The same `Margin` as `margin` of the column of the categories' names.

    >>> m = coded_margin("sex", [0, 1, 0], {"f": 0.5, "m": 0.5})
    >>> m.codes.tolist(), m.shares.tolist(), m.labels
    ([0, 1, 0], [0.5, 0.5], ('f', 'm'))
    """
    labels, values = _shares(name, shares)
    found = np.asarray(codes, dtype=np.int64).reshape(-1)
    if found.size and (found.min() < 0 or found.max() >= len(labels)):
        raise RakingError(f"{name}: a code outside 0 to {len(labels) - 1}")
    return _checked(name, found, labels, values)


def _shares(name: str, shares: Mapping[Any, float]) -> tuple[tuple[str, ...], FloatArray]:
    labels = tuple(str(key) for key in shares)
    values = np.array([float(v) for v in shares.values()])
    if len(set(labels)) != len(labels):
        raise RakingError(f"{name}: a category is given twice")
    if not np.all(np.isfinite(values)) or np.any(values <= 0) or abs(values.sum() - 1.0) > 1e-6:
        raise RakingError(f"{name}: the shares must be positive and sum to 1")
    return labels, values


def _checked(name: str, codes: IntArray, labels: tuple[str, ...], values: FloatArray) -> Margin:
    empty = [label for label, count in zip(labels, np.bincount(codes, minlength=len(labels)), strict=True)
             if count == 0]
    if empty:
        raise RakingError(f"{name}: no respondents in the categories {empty[:5]}, which have a population share")
    return Margin(name=name, codes=codes, shares=values / values.sum(), labels=labels)


def rake(margins: Sequence[Margin], base: npt.ArrayLike | None = None, *, cap: float | None = 5.0,
         tolerance: float = TOLERANCE, max_iterations: int = MAX_ITERATIONS,
         counts: npt.ArrayLike | None = None) -> Raked:
    """Weights whose weighted sample shares equal every margin's population shares (module docstring);
    `counts`: the respondents each row stands for (grouped rows).

    >>> m = margin("g", ["a", "a", "a", "b"], {"a": 0.5, "b": 0.5})
    >>> d = rake([m], cap=None)
    >>> d.weights.tolist(), d.converged
    ([0.6666666666666666, 0.6666666666666666, 0.6666666666666666, 2.0], True)
    """
    if not margins:
        raise RakingError("give at least one margin to rake to")
    sizes = {m.codes.size for m in margins}
    if len(sizes) != 1:
        raise RakingError("every margin must have one category per row")
    rows = sizes.pop()
    if cap is not None and not cap > 1.0:
        raise RakingError("the cap is a multiple of the median weight and must exceed 1")
    m = row_counts(counts, rows, RakingError)  # a raking's refusal, as its callers catch it
    n = rows if m is None else float(m.sum())
    w = np.ones(rows) if base is None else np.asarray(base, dtype=float).copy()
    if w.shape != (rows,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise RakingError("base weights must be positive finite numbers, one per row")
    w, iterations, converged = _ipf(margins, w * (n / _mass(w, m).sum()), tolerance, max_iterations, m)
    messages = [] if converged else [f"raking did not converge in {max_iterations} iterations"]
    rounds, cap_met = 0, True
    if cap is not None:
        best = _excess(w, cap, m)
        while best > 1e-9 and rounds < CAP_ROUNDS and converged:
            rounds += 1
            capped = np.minimum(w, cap * median_of(w, m))
            w_next, more, converged = _ipf(margins, capped * (n / _mass(capped, m).sum()), tolerance,
                                           max_iterations, m)
            iterations += more
            excess = _excess(w_next, cap, m)
            w = w_next
            if excess > best * (1 - 1e-6):  # no progress: the cap and the margins do not hold together
                break
            best = excess
        cap_met = _excess(w, cap, m) <= 1e-9
        if not cap_met:
            messages.append(f"the weights could not be capped at {cap:g} times their median while meeting the "
                            f"margins (largest: {w.max() / median_of(w, m):.3g} times the median)")
    return Raked(weights=w, margins=tuple(margins), iterations=iterations, converged=converged, cap=cap,
                  cap_met=cap_met, cap_rounds=rounds, messages=tuple(messages), counts=m)


def median_of(values: FloatArray, counts: FloatArray | None = None) -> float:
    """The median of `values`, each repeated `counts` times (np.median of the rows written out).

    >>> median_of(np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 1.0])), float(np.median([3.0, 1.0, 1.0, 2.0]))
    (1.5, 1.5)
    """
    if counts is None:
        return float(np.median(values))
    order = np.argsort(values, kind="stable")
    ends = np.cumsum(counts[order])  # the sorted rows written out: row j ends before position ends[j]
    n = int(ends[-1])
    low, high = (values[order][np.searchsorted(ends, k, side="right")] for k in ((n - 1) // 2, n // 2))
    return float(np.mean([low, high]))


def _mass(w: FloatArray, counts: FloatArray | None) -> FloatArray:
    return w if counts is None else w * counts


def _excess(w: FloatArray, cap: float, counts: FloatArray | None = None) -> float:
    return float(max(0.0, w.max() / median_of(w, counts) / cap - 1.0))


def _ipf(margins: Sequence[Margin], w: FloatArray, tolerance: float, max_iterations: int,
         counts: FloatArray | None = None) -> tuple[FloatArray, int, bool]:
    n = w.size if counts is None else counts.sum()
    for iteration in range(1, max_iterations + 1):
        for m in margins:
            mass = _mass(w, counts)
            share = np.bincount(m.codes, weights=mass, minlength=m.shares.size) / mass.sum()
            w = w * (m.shares / share)[m.codes]
        w = w * (n / _mass(w, counts).sum())
        mass = _mass(w, counts)
        gap = max(float(np.abs(np.bincount(m.codes, weights=mass, minlength=m.shares.size) / n - m.shares).max())
                  for m in margins)
        if gap <= tolerance:
            return w, iteration, True
    return w, max_iterations, False

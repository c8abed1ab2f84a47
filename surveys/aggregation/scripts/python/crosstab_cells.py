"""A cross-tab's cells: the questions' channels and indicators, the joint cells' score intervals, Fieller's
ratios, the planner for joint cells and the weighted covariances."""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from .raking import Weighted
from .shapes import Array, Book, Columns, Question

CROSSTAB_COLUMNS = [
    "a_id", "a_key", "b_id", "b_key", "n", "confidence", "a_index", "a_label", "b_index", "b_label", "count",
    "estimate", "std_error", "ci_low", "ci_high",
    "b_given_a", "b_given_a_std_error", "b_given_a_ci_low", "b_given_a_ci_high", "b_given_a_bounded",
    "a_given_b", "a_given_b_std_error", "a_given_b_ci_low", "a_given_b_ci_high", "a_given_b_bounded",
    "respondents_needed", "too_few", "warning", "weights_n", "effective_n"]


def related_question(book: Book, key: str | None) -> Question:
    """The codebook's question `key`, if a cross-tab can take it (every question with options)."""
    for q in book["questions"]:
        if q["key"] == key:
            if "steps" in q["mechanism"] and not (q.get("bins") and not q.get("randomized", True)):
                raise ValueError(f"{key} is asked for its mean: it has no answers to count in a table")
            return q
    raise ValueError(f"no question {key} in the codebook")


def exact_channel(q: Question) -> tuple[float, float]:
    """(p, q_other); a number asked directly relates in its bins, sent as given: (1, 0)."""
    if "steps" in q["mechanism"]:
        return 1.0, 0.0
    m = q["mechanism"]
    return float(Fraction(m["p_exact"])), float(Fraction(m["q_other_exact"]))


def indicators(q: Question, columns: Columns, rows: Array) -> Array:
    """The 0/1 indicator x_j of each option j (a report of j, or bit j set) for the given rows: (n, k)."""
    k = len(q["options"])
    cells = np.array([[int(columns[name][i]) for i in rows] for name in q["report"]["csv_columns"]],
                     dtype=np.int64).reshape(len(q["report"]["csv_columns"]), len(rows)).T
    if q["report"]["encoding"] == "bits":
        return cells.astype(float)
    if "steps" in q["mechanism"]:  # a number asked directly: the bin of its grid index (lower edges as indexes)
        lower = np.array([b["lower_index"] for b in q["bins"]])
        cells = np.searchsorted(lower, cells, side="right") - 1
    return (cells[:, :1] == np.arange(k)[None, :]).astype(float)


def answered(q: Question, columns: Columns, i: int | np.integer) -> bool:
    return all(columns[name][i] != "" for name in q["report"]["csv_columns"])


def score_ends(pi: Array, one: Array, c0: Array, c1: float, size: Array, unit: float, z: float) -> tuple[Array, Array]:
    """The score interval of each joint cell: the pi with size (pi_hat -+ delta - pi)^2 = z^2 (c0 + c1 pi - pi^2),
    delta = 1 / (2 size (p_A - q_A)(p_B - q_B)), beyond pi_hat -+ delta; the normal end where no root is real.
    `one` is one respondent's variance of the score product, `size` each cell's (effective) sample size."""
    delta = 0.5 / (size * unit)
    ends = []
    for sign in (-1.0, 1.0):
        centre = pi + sign * delta
        a2, b1, c = size + z * z, 2.0 * size * centre + z * z * c1, size * centre ** 2 - z * z * c0
        disc = b1 * b1 - 4.0 * a2 * c
        root = (b1 + sign * np.sqrt(np.maximum(disc, 0.0))) / (2.0 * a2)
        ends.append(np.where(disc >= 0.0, root, centre + sign * z * np.sqrt(one / size)))
    low = np.where(pi - delta <= 0.0, 0.0, ends[0])
    high = np.where(pi + delta >= 1.0, 1.0, ends[1])
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def fieller_ratio(num: Array, den: Array, v_num: Array, v_den: Array, cov: Array,
                  z: float) -> tuple[Array, Array, Array, Array, Array]:
    """num / den (den one per row) with its delta-method SE and Fieller's interval: the R with
    (num - R den)^2 <= z^2 (v_num - 2 R cov + R^2 v_den); [0, 1] where den's normal interval reaches 0."""
    den, v_den = np.broadcast_to(den, num.shape), np.broadcast_to(v_den, num.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(den != 0.0, num / den, np.nan)
        se = np.sqrt(np.maximum(v_num - 2.0 * ratio * cov + ratio ** 2 * v_den, 0.0)) / np.abs(den)
        lead, half, last = den ** 2 - z * z * v_den, num * den - z * z * cov, num ** 2 - z * z * v_num
        root = np.sqrt(np.maximum(half ** 2 - lead * last, 0.0))
        bounded = den > z * np.sqrt(v_den)
        low = np.where(bounded, (half - root) / lead, 0.0)
        high = np.where(bounded, (half + root) / lead, 1.0)
    return ratio, se, np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0), bounded[:, 0]


def joint_needed(ca: tuple[float, float], cb: tuple[float, float], margin: float, confidence: float) -> int:
    """Respondents answering both for a normal half-width of `margin` on every joint cell, worst case: the largest
    one-respondent variance of s_a s_b over the tables (t, t), (1, t), (t, 1) of t on a grid of 2001 points."""
    (pa, qa), (pb, qb) = ca, cb
    ga, gb = pa - qa, pb - qb
    t = np.linspace(0.0, 1.0, 2001)
    worst = 0.0
    for fa, fb in ((t, t), (np.ones_like(t), t), (t, np.ones_like(t))):
        la, lb = qa + ga * fa, qb + gb * fb
        lab = qa * qb + qa * gb * fb + ga * qb * fa + ga * gb * t
        second = ((1 - 2 * qa) * (1 - 2 * qb) * lab + (1 - 2 * qa) * qb ** 2 * la + qa ** 2 * (1 - 2 * qb) * lb
                  + qa ** 2 * qb ** 2) / (ga * gb) ** 2
        worst = max(worst, float(np.max(second - t ** 2)))
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    return math.ceil(z * z * worst / (margin * margin))


def covariances(weights: Weighted, u: Array, v: Array) -> Array:
    """The linearization covariance of the weighted means of u's and v's columns (weights: a `Weighted`), from the
    residuals of their w-weighted regressions on the margins' indicators, as `Weighted.mean` takes variances."""
    w, z = weights.w, weights.z
    solve = np.linalg.pinv(z.T @ (w[:, None] * z), rcond=1e-12)
    eu = u - z @ (solve @ (z.T @ (w[:, None] * u)))
    ev = v - z @ (solve @ (z.T @ (w[:, None] * v)))
    return weights.n / max(weights.n - 1, 1) * ((w ** 2)[:, None] * eu).T @ ev / w.sum() ** 2

"""Means: a numeric question's mean (1-bit mean, discrete Laplace) and an ordinal question's mean score,
debiased by `ldp` from counts the database makes.

- 1-bit mean: its two tally counters (reports of 0 and of 1) are the histogram of stored values.
- Discrete Laplace: one GROUP BY (question, value) over the reports, read from the (question, response,
  value) index alone, gives the histogram of stored values r + R; at most steps + 2R + 1 rows per question, whatever
  the number of reports. `mechanism.estimate_mean` reads either.
- Ordinal mean score: `ldp.mean_score` over the levels' scores, v^T pi_hat with variance v^T Cov(pi_hat) v.
  A level without a score (such as "Prefer not to say") is left out: the mean score among those who chose a
  scored level is the ratio R = A / B, A = sum_S v_j pi_j, B = sum_S pi_j (S the scored levels). By the delta
  method R_hat - R ~ sum_S (v_j - R) (pi_hat_j - pi_j) / B, so its standard error is that of the linear score
  w_j = v_j - R_hat on S (0 elsewhere), which `ldp.mean_score` gives, divided by B_hat; the interval is Student's
  t with n - 1 degrees of freedom as `ldp.mean_score`'s, clipped to the scored levels' range. With every level
  scored this is `ldp.mean_score` itself.
- Planner: a margin on the mean is a fraction of the range (the dashboard's ±5% is 5% of hi - lo);
  `ldp.planning.sizes.mean_respondents_needed` gives the respondents, `ldp.means.numeric.worst_mean_variance` the
  worst-case margin reached with n reports.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from django.db.models import Count

import ldp
import ldp.means.numeric
import ldp.planning.sizes
from ldp.means.ordinal import scored_mean
from ldp.stats.intervals import z_value
from surveys.collection.models import Report
from surveys.collection.plan import PlannedQuestion

Histogram = tuple[np.ndarray, np.ndarray]  # distinct stored values, how often each occurred


def histograms(questions: Iterable[PlannedQuestion]) -> dict[int, Histogram]:
    """question id -> the histogram of its stored values, for the discrete Laplace questions among
    `questions`: one grouped query, GROUP BY (question, value)."""
    ids = [q.id for q in questions if q.mechanism.encoding == "integer"]
    found: dict[int, list[tuple[int, int]]] = {pk: [] for pk in ids}
    if ids:
        rows = (Report.objects.filter(question_id__in=ids).order_by().values("question_id", "value")
                .annotate(c=Count("*")).values_list("question_id", "value", "c"))
        for question_id, value, c in rows:
            found[question_id].append((value, c))
    return {pk: _arrays(rows) for pk, rows in found.items()}


def _arrays(rows: list[tuple[int, int]]) -> Histogram:
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    values, counts = np.array(sorted(rows), dtype=np.int64).T
    return values, counts


def numeric_mean(question: PlannedQuestion, counts: np.ndarray, histogram: Histogram | None,
                 confidence: float) -> ldp.MeanEstimate:
    """A numeric question's mean from its histogram (discrete Laplace) or its two counters (1-bit mean)."""
    mechanism = question.mechanism
    if histogram is None:  # the 1-bit mean: values 0 and 1, counted by the tallies
        histogram = (np.arange(len(counts), dtype=np.int64), np.asarray(counts, dtype=np.int64))
    return mechanism.estimate_mean(*histogram, confidence=confidence)  # type: ignore[attr-defined]


def units(question: PlannedQuestion, margin: float) -> float:
    """A margin given as a fraction of the range, in the question's units."""
    scale = question.scale
    return margin * float(scale.hi - scale.lo) if scale is not None else math.nan


def needed(question: PlannedQuestion, margin: float, confidence: float) -> int:
    """Respondents for a margin (a fraction of the range) on the mean, worst case."""
    return ldp.planning.sizes.mean_respondents_needed(question.mechanism, units(question, margin), confidence)


def margin_at(question: PlannedQuestion, n: int, confidence: float) -> float:
    """The worst-case half-width on the mean reached with n reports, in units; inf at n = 0."""
    if n <= 0:
        return math.inf
    variance = ldp.means.numeric.worst_mean_variance(question.mechanism)  # type: ignore[arg-type]
    return z_value(confidence) * math.sqrt(variance / n)


def mean_score(question: PlannedQuestion, counts: np.ndarray, n: int, confidence: float) -> ldp.MeanEstimate | None:
    """An ordinal question's mean score over its scored levels (see the module docstring and
    `ldp.means.ordinal.scored_mean`); None without a scored level."""
    scores = [None if score is None else float(score) for score in question.scores]
    return scored_mean(question.mechanism, counts, n, scores, confidence)

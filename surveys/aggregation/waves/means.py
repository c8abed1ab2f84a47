"""Numeric means across the waves of a series: each wave's mean of a numeric question asked for its mean (1-bit
mean, discrete Laplace, a number sent as given), as the wave's own dashboard gives it at fixed n (`means`; weighted:
raked to the wave's own margins, `weighting.weigh`), and the change between the two waves compared, with its normal
interval and z test (`ldp.waves.pairs.between_means`).

A question is the same in every wave by its lineage; a wave that asks it otherwise than for its mean does not take
part. No mean remembers randomization, so two waves' reports are randomized independently: the change adds the two
variances, unless the later wave has respondents who said they had answered an earlier wave, whose answers covary
in a way their reports (never linked) do not tell: then the largest variance any correlation allows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ldp
from ldp.waves import pairs as wave_pairs
from ldp.waves.pairs import Change
from surveys.collection import plan
from surveys.collection.plan import PlannedQuestion

from ..params import ResultOptions
from ..results import means
from ..weighting import weights as weighting


@dataclass(frozen=True)
class MeanPoint:
    """One numeric question's mean in one wave."""

    wave: int
    mean: ldp.MeanEstimate  # NaN without reports
    mechanism: ldp.Mechanism

    @property
    def n(self) -> int:
        return self.mean.n


@dataclass(frozen=True)
class MeanTrend:
    question: PlannedQuestion  # as the wave asked about asks it
    points: list[MeanPoint]
    change: Change | None  # second - first (one value), when both have reports
    first: int
    second: int
    missing: tuple[int, ...]  # waves that did not ask it, or not for its mean
    weighted: bool = False


def trends(current: plan.SurveyPlan, plans: Mapping[int, plan.SurveyPlan], counted: Mapping[int, Any],
           lineages: Mapping[int, Any], waves: Sequence[Any], pair: tuple[int | None, int | None],
           options: ResultOptions) -> list[MeanTrend]:
    """Each numeric mean of `current` across the `waves` (`waves.Wave`s, in order) readable in `plans`; `counted`
    their tallies, `lineages` every question's lineage by id. The discrete Laplace histograms in one query."""
    asked = [question for question in current if question.mean]
    if not asked:
        return []
    histograms = means.histograms(q for planned in plans.values() for q in planned if q.mean)
    return [_trend(question, plans, counted, histograms, lineages, waves, pair, options) for question in asked]


def _trend(question: PlannedQuestion, plans: Mapping[int, plan.SurveyPlan], counted: Mapping[int, Any],
           histograms: dict[int, means.Histogram], lineages: Mapping[int, Any], waves: Sequence[Any],
           pair: tuple[int | None, int | None], options: ResultOptions) -> MeanTrend:
    points, missing = [], []
    for wave in waves:
        found = next((q for q in plans.get(wave.number, ()) if lineages[q.id] == lineages[question.id]), None)
        if found is None or not found.mean:
            missing.append(wave.number)
            continue
        counts, _n = counted[wave.number][found.id]
        mean = means.numeric_mean(found, counts, histograms.get(found.id), options.confidence)
        if wave.weights is not None and mean.n:  # its own raking, as its dashboard weighs it
            mean = weighting.weigh(found, None, wave.weights, options.confidence)[1] or mean
        points.append(MeanPoint(wave.number, mean, found.mechanism))
    first, second = pair
    return MeanTrend(question, points, _change(points, waves, first, second, options.confidence), first or 0,
                     second or 0, tuple(missing), options.weighted)


def _change(points: list[MeanPoint], waves: Sequence[Any], first: int | None, second: int | None,
            confidence: float) -> Change | None:
    found = {point.wave: point for point in points}
    if first not in found or second not in found or not found[first].n or not found[second].n:
        return None
    later = next(wave for wave in waves if wave.number == max(first, second))
    return wave_pairs.between_means(found[first].mean, found[second].mean, later.repeated, confidence)

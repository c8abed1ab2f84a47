"""Results across the waves of a series: each question's estimate per wave and the change between two waves.

A question is the same in every wave by its lineage (the admin's "run again as a new wave" copies it). Each wave
debiases its counts (the running tallies, as the dashboard) through the channel its reports were made with:
the composed channel of both layers when its series remembers randomization and the question has a permanent
layer (`ldp.mechanisms.remembered.Remembered`), else its own mechanism's. A wave whose reports were made otherwise than
this
wave's is marked. Only the waves the researcher may see take part: another wave's figures, its number of
responses included, stay with its own researchers.

The change between two waves (`ldp.waves.pairs`): the respondents of the later wave whose browser said it had
answered an earlier wave of the series are taken to have answered the earlier wave compared (a panel; the flag
does not say which wave), and as few of them as the estimates allow to have changed their answer; their
reports are never linked, so neither is observed. Questions with one answer of k (yes/no, single choice,
ordinal levels, numeric bins, asked directly or randomized) are compared; a numeric question's mean is compared as
a mean (`wave_means`); multi-selects are listed as not compared. The assumption a change makes, in words:
`wave_words`.

Weighted (`options.weighted`): each wave with responses is raked to its own population margins (a new wave copies
the margins of the wave it was made from) and each point is that wave's weighted estimate, as its own dashboard
gives it (`weighting.weigh`: linearization through the raking). Two waves of different respondents are
independent samples, so the weighted change's variance is the sum of the two weighted variances. When the later
wave has respondents who answered an earlier wave, the two weighted estimates covary through those respondents,
whose reports are never linked: that covariance is not worked out through the weights, so the weighted change
takes the largest variance any correlation allows, (se1 + se2)^2 from the two weighted standard errors
(`wave_pairs.UNKNOWN`), and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

import numpy as np
from django.db.models import Count, Max, Min, Q
from django.utils.translation import gettext as _

import ldp
from ldp.mechanisms.remembered import Remembered, instantaneous
from ldp.waves import pairs as wave_pairs
from ldp.waves.pairs import Change, WaveChannel
from surveys.collection import plan, tallies
from surveys.collection.models import Question, Series, Survey
from surveys.collection.plan import PlannedQuestion, Unavailable

from ..models import PopulationMargin
from ..params import BadParameter, ResultOptions
from ..results import versions
from ..weighting import weights as weighting
from . import means as wave_means


@dataclass(frozen=True)
class Wave:
    """One wave the researcher may see."""

    number: int
    survey: Survey
    responses: int
    repeated: int  # responses whose browser said it had answered an earlier wave of the series
    unavailable: str | None = None  # why its figures cannot be read (its configuration), else None
    first_day: date | None = None  # the days of its first and last responses (a response keeps its day only)
    last_day: date | None = None
    weights: weighting.Weights | None = None  # weighted figures: its own raking (None without responses)
    margins: frozenset[int] = frozenset()  # weighted: the questions it is raked to (their figures are the margins)


@dataclass(frozen=True)
class Point:
    """One question's estimate in one wave."""

    wave: int
    estimate: ldp.Estimate  # per option; NaN without reports
    mechanism: ldp.Mechanism  # the wave's own (the instantaneous layer when remembered)
    remembered: Remembered | None
    design: WaveChannel
    same: bool  # its reports were made as this wave's were (the same channel and layers)
    fixed: bool = False  # weighted to a margin of this question: the figures are the margin's shares, no estimate

    @property
    def n(self) -> int:
        return self.estimate.n

    @property
    def epsilon(self) -> float:
        """One report's loss in this wave (the composed channel's when remembered)."""
        return self.remembered.wave_epsilon if self.remembered is not None else self.mechanism.effective_epsilon


@dataclass(frozen=True)
class Trend:
    question: PlannedQuestion  # as this wave asks it
    points: list[Point]
    change: Change | None  # second - first, when both have reports
    first: int
    second: int
    missing: tuple[int, ...]  # waves that did not ask it, or asked it with other answers
    weighted: bool = False  # each wave's figures raked to its own margins (the change's words say so)

    @property
    def differs(self) -> bool:
        return any(not point.same for point in self.points)

    @property
    def fixed(self) -> bool:
        """Weighted, and a margin in both waves compared: its change is the margins', with nothing to test."""
        found = {point.wave: point.fixed for point in self.points}
        return self.weighted and found.get(self.first, False) and found.get(self.second, False)


@dataclass(frozen=True)
class SeriesResults:
    survey: Survey  # the wave asked from
    series: Series
    waves: list[Wave]
    confidence: float
    first: int | None  # the waves compared; None with fewer than two waves to see
    second: int | None
    trends: list[Trend]
    not_compared: list[PlannedQuestion]  # multi-select: no change across waves here
    weighted: bool = False  # each wave's figures raked to its own margins
    mean_trends: list[wave_means.MeanTrend] = field(default_factory=list)  # numeric means

    @property
    def not_compared_words(self) -> str:
        return "; ".join(f"{question.order}. {question.text}" for question in self.not_compared)

    @property
    def change_waves(self) -> tuple[Wave, Wave] | None:
        found = {wave.number: wave for wave in self.waves}
        if self.first is None or self.second is None:
            return None
        return found[self.first], found[self.second]

    @property
    def shared(self) -> int:
        """Responses of the later of the two waves whose browser answered an earlier wave."""
        pair = self.change_waves
        return 0 if pair is None else max(pair, key=lambda wave: wave.number).repeated


def series_results(survey: Survey, user: Any, options: ResultOptions,
                   weights: weighting.Weights | None = None) -> SeriesResults | None:
    """The waves of `survey`'s series that `user` may see, compared; None when it is no wave of a series.
    `options.first`/`second` name the waves compared (wave numbers; default the last two with responses).
    `weights`: `survey`'s own, when the caller has raked it already (the dashboard's estimates)."""
    if survey.series is None or survey.wave is None:
        return None
    surveys = list(Survey.objects.visible_to(user).filter(series=survey.series).select_related("series")
                   .annotate(repeated=Count("responses", filter=Q(responses__earlier_wave=True)),
                             first_day=Min("responses__submitted_on"), last_day=Max("responses__submitted_on"))
                   .order_by("wave"))
    plans, counted, waves = {}, {}, []
    for wave in surveys:
        try:
            plans[wave.wave] = plan.of(wave)
            versions.check(wave, plans[wave.wave])
            counted[wave.wave] = tallies.read(plans[wave.wave])
        except Unavailable as refusal:
            if wave.pk == survey.pk:
                raise
            plans.pop(wave.wave, None)
            waves.append(Wave(wave.wave, wave, 0, 0, refusal.reason, wave.first_day, wave.last_day))
            continue
        responses = max((n for _, n in counted[wave.wave].values()), default=0)
        wave_weights = None
        if options.weighted and responses:
            own = wave.pk == survey.pk and weights is not None
            wave_weights = weights if own else _weights(wave, plans[wave.wave])
        waves.append(Wave(wave.wave, wave, responses, wave.repeated, None, wave.first_day, wave.last_day,
                          wave_weights, _margins(wave) if wave_weights is not None else frozenset()))
    first, second = _pair(waves, options)
    layers = _layers(surveys)
    current = plans[survey.wave]
    trends = [_trend(question, survey.wave, plans, counted, layers, waves, (first, second), options)
              for question in current if question.mechanism.one_of_k]
    not_compared = [question for question in current if question.mechanism.shape is ldp.Shape.TICKS]
    lineages = {pk: lineage for pk, (lineage, _remembered) in layers.items()}
    mean_trends = wave_means.trends(current, plans, counted, lineages, waves, (first, second), options)
    return SeriesResults(survey, survey.series, waves, options.confidence, first, second, trends, not_compared,
                         options.weighted, mean_trends)


def _weights(wave: Survey, planned: plan.SurveyPlan) -> weighting.Weights:
    """The wave's responses raked to its own margins; a refusal that names the wave when they cannot be."""
    try:
        return weighting.weights(wave, {q.id: q for q in planned},
                                 [q.id for q in planned if q.mechanism.shape is not ldp.Shape.TICKS])
    except BadParameter as refusal:  # no margins
        raise BadParameter(refusal.field, _("Wave %(wave)s: %(reason)s") % {"wave": wave.wave,
                                                                           "reason": refusal.reason}) from None
    except weighting.Unweightable as refusal:
        raise weighting.Unweightable(_("Wave %(wave)s: %(reason)s") % {"wave": wave.wave,
                                                                       "reason": refusal.reason}) from None


def _margins(wave: Survey) -> frozenset[int]:
    return frozenset(PopulationMargin.objects.filter(question__survey=wave).values_list("question_id", flat=True))


def _pair(waves: list[Wave], options: ResultOptions) -> tuple[int | None, int | None]:
    """The waves compared: those asked for, else the last two with responses (a wave just made or opened has none
    yet, and comparing with it would give no change), else the first and the last."""
    numbers = [wave.number for wave in waves]
    for name in ("first", "second"):
        asked = getattr(options, name)
        if asked is not None and asked not in numbers:
            raise BadParameter(name, "no such wave of this series among those you may see: "
                                     + ", ".join(map(str, numbers)))
    if len(numbers) < 2:
        return None, None
    answered = [wave.number for wave in waves if wave.responses]
    default = answered[-2:] if len(answered) >= 2 else [numbers[0], numbers[-1]]
    first = options.first if options.first is not None else default[0]
    second = options.second if options.second is not None else default[1]
    if options.second is None and second == first:  # one wave asked for: compared with the other of the default
        second = default[0]
    if options.first is None and first == second:
        first = default[1]
    if first == second:
        raise BadParameter("second" if options.second is not None else "first", "compare two different waves")
    return first, second


def _layers(surveys: list[Survey]) -> dict[int, tuple[Any, Remembered | None]]:
    """question id -> (lineage, its two layers when remembered), one query with the options."""
    questions = Question.objects.filter(survey__in=surveys).select_related("survey__series").prefetch_related(
        "options")
    return {question.pk: (question.lineage, question.remembered()) for question in questions}


def _trend(question: PlannedQuestion, here: int, plans: dict[int, plan.SurveyPlan], counted: dict[int, Any],
           layers: dict[int, tuple[Any, Remembered | None]], waves: list[Wave],
           pair: tuple[int | None, int | None], options: ResultOptions) -> Trend:
    first, second = pair
    confidence = options.confidence
    lineage, _remembered = layers[question.id]
    points, missing = [], []
    own = None
    for wave in waves:
        asked = next((q for q in plans.get(wave.number, ()) if layers[q.id][0] == lineage), None)
        if asked is None or asked.options != question.options:
            missing.append(wave.number)
            continue
        remembered = layers[asked.id][1]
        counts, n = counted[wave.number][asked.id]
        source = remembered if remembered is not None else asked.mechanism
        estimate = source.estimate(np.asarray(counts), n, confidence=confidence)
        if wave.weights is not None:  # its own raking; the plan's mechanism is the composed one when remembered
            estimate = _weighed(asked, estimate, wave.weights, confidence)
        mechanism = instantaneous(asked.mechanism)  # the plan's is both layers composed when remembered
        design = WaveChannel.of(mechanism, remembered)
        if wave.number == here:
            own = design
        points.append(Point(wave.number, estimate, mechanism, remembered, design, True, asked.id in wave.margins))
    points = [replace(p, same=p.design == own) for p in points]
    change = _change(points, waves, first, second, options)
    return Trend(question, points, change, first or 0, second or 0, tuple(missing), options.weighted)


def _weighed(asked: PlannedQuestion, estimate: ldp.Estimate, weights: weighting.Weights,
             confidence: float) -> ldp.Estimate:
    weighted, _mean = weighting.weigh(asked, estimate, weights, confidence)
    if weighted is None:  # a numeric mean: compared apart (`wave_means`)
        raise ValueError("only questions with one answer of k have weighted fractions")
    return weighted


def _change(points: list[Point], waves: list[Wave], first: int | None, second: int | None,
            options: ResultOptions) -> Change | None:
    found = {point.wave: point for point in points}
    if first not in found or second not in found or not found[first].n or not found[second].n:
        return None
    one, two = found[first], found[second]
    later = next(wave for wave in waves if wave.number == max(first, second))
    # Weighted: the shared respondents' covariance is not worked out through the weights (module docstring).
    return wave_pairs.between(one.estimate, two.estimate, one.design, two.design, later.repeated,
                              options.confidence, known=not options.weighted)

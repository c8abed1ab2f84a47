"""Results across waves as a table (waves.csv under /results/<slug>/export/): the numbers of the dashboard's waves
section and of GET /api/v1/surveys/<slug>/waves/ (surveys.aggregation.waves.series), with the same confidence, first and
second, one row per (question, wave, option) and per (question, option) of the change.

Each row names its question as the wave asked about asks it (question_id, key, order, text) and its option, then:

- row = "wave": one wave's estimate. The wave: wave, wave_slug, wave_title, wave_status, opens_at and closes_at
  as configured (UTC), first_response_on and last_response_on (the days of its first and last responses), its
  responses and answered_an_earlier_wave. How its reports were made: mechanism and its parameters (JSON), epsilon
  (one report's loss in this wave), p and q_other (the channel it is debiased through: both layers composed when
  it remembers randomization), permanent_mechanism (the permanent layer's parameters, JSON) and
  all_waves_epsilon, empty without a permanent layer, and same_as_this_wave ("false" where its reports were made
  otherwise than the wave asked about's). Then n, estimate, std_error, ci_low, ci_high (Wilson,
  continuity-corrected, through the channel, clipped to [0, 1]) at confidence.
- row = "change": second_wave's estimate minus first_wave's (the wave's columns and n empty): std_error, normal
  interval, z, two-sided p_value, shared (the later wave's responses taken to have answered both), correlation
  (independent, fewest_changes or unknown) and the assumption in words; same_as_this_wave says whether the two
  waves' reports were made the same way.
- row = "wave_mean", then "mean_change": a numeric question's mean (option_index empty, option_label "mean"), in
  its units: each wave's as its own dashboard gives it at fixed n (p, q_other, the permanent layer's columns and
  same_as_this_wave empty: no mean remembers randomization), then the change of the means, whose correlation is
  independent or unknown (the largest variance any correlation allows).

Weighted (weighted=true): each wave's n, estimate, std_error and interval are under its own raking (Wilson at each
option's effective sample size), the change's variance the sum of the two waves' when they share no respondents,
else the largest any correlation allows, (se1 + se2)^2 (correlation "unknown", said in assumption). The last
columns say so on every row: weighted ("true" or "false"), and on a wave row weighted_responses (the responses
raked, its n), left_out (responses without an answer to every margin question), design_effect (Kish's) and
effective_n, empty when unweighted.

A question not asked by a wave (or with other options) has no row for it; a change is left out when either wave
has no reports. Undefined numbers are empty cells, as in the other tables.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from ..exports.figure_tables import cell
from .means import MeanTrend
from .series import Point, SeriesResults, Trend, Wave
from .words import correlation_words, mean_words

COLUMNS = [
    "row", "question_id", "question_key", "question_order", "question_text", "option_index", "option_label",
    "wave", "wave_slug", "wave_title", "wave_status", "opens_at", "closes_at", "first_response_on",
    "last_response_on", "responses", "answered_an_earlier_wave",
    "mechanism", "parameters", "epsilon", "p", "q_other", "permanent_mechanism", "all_waves_epsilon",
    "same_as_this_wave",
    "n", "estimate", "std_error", "ci_low", "ci_high", "confidence",
    "first_wave", "second_wave", "z", "p_value", "shared", "correlation", "assumption",
    "weighted", "weighted_responses", "left_out", "design_effect", "effective_n",
]
_WAVE_CELLS = COLUMNS.index("mechanism") - COLUMNS.index("wave")  # wave ... answered_an_earlier_wave
_MADE_CELLS = COLUMNS.index("same_as_this_wave") - COLUMNS.index("mechanism")  # mechanism ... all_waves_epsilon
_CHANGE_CELLS = COLUMNS.index("weighted") - COLUMNS.index("first_wave")
_WEIGHTS_CELLS = len(COLUMNS) - COLUMNS.index("weighted") - 1  # weighted_responses ... effective_n


def rows(found: SeriesResults) -> Iterator[list[Any]]:
    """Header, then per compared question its waves' rows (in wave order, each option) and its change's."""
    yield COLUMNS
    waves = {wave.number: wave for wave in found.waves}
    for trend in found.trends:
        q = trend.question
        for point in trend.points:
            for j, label in enumerate(q.options):
                yield ["wave", *_question(trend, j, label), *_wave(waves[point.wave]), *_made(point),
                       *_figures(point.n, point.estimate, j), *[""] * _CHANGE_CELLS,
                       *_weights(found.weighted, waves[point.wave])]
        if trend.change is not None:
            for row in _change(trend):
                yield [*row, str(found.weighted).lower(), *[""] * _WEIGHTS_CELLS]
    for mean in found.mean_trends:
        yield from _mean_rows(mean, waves, found.weighted)


def _mean_rows(trend: MeanTrend, waves: dict[int, Wave], weighted: bool) -> Iterator[list[Any]]:
    q = trend.question
    named = [q.id, q.key, q.order, q.text, "", "mean"]
    for point in trend.points:
        m = point.mean
        yield ["wave_mean", *named, *_wave(waves[point.wave]), point.mechanism.name, _parameters(point.mechanism),
               cell(point.mechanism.effective_epsilon), *[""] * (_MADE_CELLS - 3), "", point.n,
               *(cell(x) for x in (m.mean, m.std_error, m.ci_low, m.ci_high)), m.confidence, *[""] * _CHANGE_CELLS,
               *_weights(weighted, waves[point.wave])]
    change = trend.change
    if change is not None:
        yield ["mean_change", *named, *[""] * (_WAVE_CELLS + _MADE_CELLS + 2),
               *(cell(values[0]) for values in (change.estimate, change.std_error, change.ci_low, change.ci_high)),
               change.confidence, trend.first, trend.second, cell(change.z[0]), cell(change.p_value[0]), change.shared,
               change.correlation, mean_words(trend), str(weighted).lower(), *[""] * _WEIGHTS_CELLS]


def _weights(weighted: bool, wave: Wave) -> list[Any]:
    """Whether the figures are weighted and, on a wave's row, what its weights cost."""
    if wave.weights is None:
        return [str(weighted).lower(), *[""] * _WEIGHTS_CELLS]
    summary = wave.weights.summary()
    return ["true", summary["n"], summary["left_out"], cell(summary["design_effect"]), cell(summary["effective_n"])]


def _question(trend: Trend, j: int, label: str) -> list[Any]:
    q = trend.question
    return [q.id, q.key, q.order, q.text, j, label]


def _wave(wave: Wave) -> list[Any]:
    s = wave.survey
    return [wave.number, s.slug, s.title, s.status, _when(s.opens_at), _when(s.closes_at), _when(wave.first_day),
            _when(wave.last_day), wave.responses, wave.repeated]


def _made(point: Point) -> list[Any]:
    """How the point's reports were made: its own mechanism, the channel it is debiased through, its layers."""
    described = point.mechanism.describe()  # the API's p and q_other: the composed channel's when remembered
    p, q_other = ((described["p"], described["q_other"]) if point.remembered is None
                  else map(float, point.remembered.exact_channel()))
    permanent = point.remembered.permanent if point.remembered is not None else None
    return [point.mechanism.name, _parameters(point.mechanism), cell(point.epsilon), cell(p), cell(q_other),
            "" if permanent is None else _parameters(permanent),
            "" if point.remembered is None else cell(point.remembered.all_waves_epsilon), str(point.same).lower()]


def _parameters(mechanism: Any) -> str:
    """The configured parameters as the API gives them (its mechanism's "parameters"), as JSON."""
    return json.dumps(mechanism.describe()["parameters"], sort_keys=True)


def _figures(n: int, estimate: Any, j: int) -> list[Any]:
    return [n, *(cell(values[j]) for values in (estimate.estimate, estimate.std_error, estimate.ci_low,
                                                estimate.ci_high)), estimate.confidence]


def _change(trend: Trend) -> Iterator[list[Any]]:
    change = trend.change
    assert change is not None
    found = {point.wave: point for point in trend.points}
    same = found[trend.first].design == found[trend.second].design
    words = correlation_words(trend)
    for j, label in enumerate(trend.question.options):
        yield ["change", *_question(trend, j, label), *[""] * _WAVE_CELLS, *[""] * _MADE_CELLS, str(same).lower(), "",
               *(cell(values[j]) for values in (change.estimate, change.std_error, change.ci_low, change.ci_high)),
               change.confidence, trend.first, trend.second, cell(change.z[j]), cell(change.p_value[j]),
               change.shared, change.correlation, words]


def _when(value: datetime | date | None) -> str:
    return "" if value is None else value.isoformat()

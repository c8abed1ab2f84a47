"""A series of waves with known reports, for the results across waves.

`monthly(owner)`: the series "Monthly" (remembered randomization) of three open waves, `monthly-1..3`, with
1 yes/no by q-RR (instantaneous q 0.5, permanent q 0.8), 2 single choice by k-RR over 3 options (instantaneous
epsilon 1, permanent 3; wave 2's instantaneous layer is epsilon 1.5: its mechanism differs), 3 a multi-select
(not compared across waves). `panel_reports` randomizes one panel answering every wave, as the browsers do.
"""

from __future__ import annotations

import math

import numpy as np

from ldp.cli.simulate_waves import panel
from ldp.mechanisms.remembered import Remembered
from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Question, Response, Series, Survey

TRUTHS = {1: [[0.7, 0.3], [0.65, 0.35], [0.6, 0.4]], 2: [[0.2, 0.3, 0.5], [0.3, 0.3, 0.4], [0.4, 0.3, 0.3]]}


def specs(wave: int) -> list[QuestionSpec]:
    return [
        QuestionSpec("Smoked this month?", "qrr", q="0.5"),
        QuestionSpec("How is work?", "krr", epsilon=1.5 if wave == 2 else 1.0, options=["Bad", "Fair", "Good"]),
        QuestionSpec("Which did you use?", "multiselect", epsilon=2.0, kind="multi_select",
                     options=["Bus", "Train", "Bike"]),
    ]


def monthly(owner, waves: int = 3, remembered: bool = True, extra: tuple[QuestionSpec, ...] = ()) -> list[Survey]:
    """`extra`: more questions after the three, in every wave (each the same question by its order)."""
    series = Series.objects.create(title="Monthly", remembered=remembered)
    surveys, lineages = [], {}
    for wave in range(1, waves + 1):
        survey = builder.create_survey(f"monthly-{wave}", f"Monthly, wave {wave}", [*specs(wave), *extra],
                                       status=Survey.Status.OPEN, epsilon_budget=10.0)
        Survey.objects.filter(pk=survey.pk).update(series=series, wave=wave)
        for question in survey.ordered_questions():
            lineage = lineages.setdefault(question.order, question.lineage)
            permanent = {1: {"permanent_q": "0.8"}, 2: {"permanent_epsilon": 3.0}}.get(question.order, {})
            Question.objects.filter(pk=question.pk).update(lineage=lineage, **permanent)
        survey.refresh_from_db()
        survey.researchers.add(owner)
        surveys.append(survey)
    return surveys


def layers(survey: Survey) -> dict[int, Remembered | None]:
    """{order: its two layers (None when not remembered)} of a wave's questions."""
    return {question.order: Question.objects.get(pk=question.pk).remembered()
            for question in survey.ordered_questions()}


def panel_reports(surveys: list[Survey], n: int, seed: int, fresh: int = 0) -> dict[int, dict[int, np.ndarray]]:
    """Report values {wave: {question id: values}} of n respondents answering every wave (TRUTHS, the fewest
    changes), their permanent responses remembered across the waves and each wave's instantaneous layer its
    own, plus `fresh` respondents in each wave who answer it alone; the multi-select's ticks at random."""
    rng = np.random.default_rng(seed)
    values: dict[int, dict[int, np.ndarray]] = {s.wave: {} for s in surveys}
    by_wave = [{q.order: q for q in s.ordered_questions()} for s in surveys]
    for order, truths in TRUTHS.items():
        answers = panel([np.asarray(t) for t in truths[:len(surveys)]], n)
        first = by_wave[0][order].remembered()  # None: every wave randomizes afresh
        permanent = first.permanent.randomize if first is not None else (lambda values, rng: values)
        kept = permanent(answers[0], rng)
        for w, survey in enumerate(surveys):
            if w:
                kept = np.where(answers[w] == answers[w - 1], kept, permanent(answers[w], rng))
            question = by_wave[w][order]
            instant = question.mechanism()
            alone = rng.choice(len(truths[w]), size=fresh, p=truths[w])
            own = instant.randomize(permanent(alone, rng), rng)
            values[survey.wave][question.pk] = np.concatenate([instant.randomize(kept, rng), own])
    for w, survey in enumerate(surveys):
        multi = by_wave[w][3].mechanism()
        ticks = multi.randomize((rng.random((n + fresh, 3)) < 0.4).astype(np.uint8), rng)
        values[survey.wave][by_wave[w][3].pk] = multi.encode_many(ticks)
    return values


def store_waves(surveys: list[Survey], n: int, seed: int, fresh: int = 0) -> dict[int, dict[int, np.ndarray]]:
    """Store `panel_reports`: in every wave after the first, the panel's n responses say they answered an
    earlier wave (the browser's flag), the fresh ones do not. An `extra` question of `monthly` asked directly
    gets answers at random, a share of 0.3 + 0.1 * wave for its last option."""
    values = panel_reports(surveys, n, seed, fresh)
    rng = np.random.default_rng(seed + 1)
    for survey in surveys:
        for question in survey.ordered_questions()[3:]:
            k, last = len(question.ordered_options()) or 2, 0.3 + 0.1 * survey.wave
            shares = [*[(1 - last) / (k - 1)] * (k - 1), last]
            values[survey.wave][question.pk] = rng.choice(k, size=n + fresh, p=shares)
    for survey in surveys:
        responses = builder.write_responses(survey, values[survey.wave])
        if survey.wave > 1:
            Response.objects.filter(pk__in=responses[:n]).update(earlier_wave=True)
    return values


def close_enough(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15) or (math.isnan(a) and math.isnan(b))

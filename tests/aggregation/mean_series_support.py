"""A series with numeric questions asked for their mean, for the means across waves.

`habits(owner)`: the series "Habits" of three open waves `habits-1..3` (randomized afresh), each with 1 yes/no by
q-RR, 2 a 1-bit mean (0-100), 3 discrete Laplace (0-10 by 0.5), 4 a number sent as given (1-10, in two bins),
5 a direct region (a margin when asked) and 6 a multi-select (not compared). Waves 1 and 2 are answered, their
means higher in wave 2; wave 3 has just opened.
"""

from __future__ import annotations

import numpy as np

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Question, Response, Series, Survey
from tests.aggregation.weighting_support import enter

SPECS = [
    QuestionSpec("Smoked this month?", "qrr", q="0.5"),
    QuestionSpec("Hours online per week?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "100", "1")),
    QuestionSpec("Drinks last week?", "dlaplace", epsilon=1.0, kind="numeric", scale=("0", "10", "0.5")),
    QuestionSpec("Household size?", "direct_number", kind="numeric", scale=("1", "10", "1"),
                 options=["1 to 2", "3 to 10"], edges=["1", "3"]),
    QuestionSpec("Region?", "direct", options=["North", "South"]),
    QuestionSpec("Which did you use?", "multiselect", epsilon=2.0, kind="multi_select", options=["Bus", "Train"]),
]
MEANS = (2, 3, 4)
# each wave's true answers: grid indexes drawn around a centre that moves between waves
CENTRES = {1: {2: 30, 3: 6, 4: 2}, 2: {2: 45, 3: 8, 4: 3}}


def habits(owner, sizes=(400, 300), shared=0, margins=False) -> list[Survey]:
    """Three waves of "Habits"; waves 1 and 2 answered (`shared` of wave 2's responses say they answered an
    earlier wave), wave 3 just opened."""
    series = Series.objects.create(title="Habits", remembered=False)
    rng = np.random.default_rng(7)
    surveys, lineages = [], {}
    for wave in (1, 2, 3):
        survey = builder.create_survey(f"habits-{wave}", "Habits", SPECS, status=Survey.Status.OPEN,
                                       epsilon_budget=20.0)
        Survey.objects.filter(pk=survey.pk).update(series=series, wave=wave)
        for question in survey.ordered_questions():
            Question.objects.filter(pk=question.pk).update(lineage=lineages.setdefault(question.order,
                                                                                       question.lineage))
        survey.refresh_from_db()
        survey.researchers.add(owner)
        if margins:
            enter(survey, 5, {"North": 0.5, "South": 0.5})
        surveys.append(survey)
        if wave <= len(sizes):
            values = {}
            for question in survey.ordered_questions():
                mechanism, n = question.mechanism(), sizes[wave - 1]
                if question.order in MEANS:
                    steps = mechanism.steps
                    truths = np.clip(rng.normal(CENTRES[wave][question.order] * steps / {2: 100, 3: 20, 4: 9}[
                        question.order], steps / 6, n).round(), 0, steps).astype(np.int64)
                elif question.order == 6:
                    truths = (rng.random((n, 2)) < 0.4).astype(np.uint8)
                else:
                    truths = rng.choice(2, size=n, p=[0.6, 0.4] if wave == 1 else [0.5, 0.5])
                values[question.pk] = mechanism.encode_many(mechanism.randomize(truths, rng))
            stored = builder.write_responses(survey, values)
            if wave == 2 and shared:
                Response.objects.filter(pk__in=stored[:shared]).update(earlier_wave=True)
    return surveys

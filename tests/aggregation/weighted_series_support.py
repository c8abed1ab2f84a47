"""A series of waves with population margins, for the weighted results across waves.

`weighted_series(owner)`: the series "Yearly" of two open waves, `yearly-1` and `yearly-2` (randomized afresh),
each with 1 yes/no by q-RR, 2 direct age band, 3 direct region, 4 single choice by k-RR over 3 options, 5 a
multi-select (not compared). Each wave has its own margins (MARGINS: wave 2's census is newer). `answer_waves`
stores a sample with too many young people and northerners, whose answers depend on age and region, so that the
weighted estimates differ from the unweighted ones and from those under the other wave's margins.
"""

from __future__ import annotations

import numpy as np

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Question, Series, Survey
from tests.aggregation.weighting_support import enter

AGES, REGIONS = ["18-34", "35-54", "55+"], ["North", "South"]
MARGINS = {1: {2: {"18-34": 0.3, "35-54": 0.4, "55+": 0.3}, 3: {"North": 0.45, "South": 0.55}},
           2: {2: {"18-34": 0.25, "35-54": 0.35, "55+": 0.4}, 3: {"North": 0.4, "South": 0.6}}}
SAMPLE_AGE, SAMPLE_NORTH = [0.5, 0.3, 0.2], 0.6
YES_BY_AGE = {1: [0.5, 0.3, 0.15], 2: [0.45, 0.3, 0.2]}  # P(yes to question 1 | age band), per wave
CHOICE_BY_REGION = {1: [[0.2, 0.3, 0.5], [0.4, 0.3, 0.3]], 2: [[0.3, 0.3, 0.4], [0.4, 0.35, 0.25]]}


def specs() -> list[QuestionSpec]:
    return [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Age band?", "direct", options=AGES),
        QuestionSpec("Region?", "direct", options=REGIONS),
        QuestionSpec("How often?", "krr", epsilon=1.5, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Which did you use?", "multiselect", epsilon=2.0, kind="multi_select",
                     options=["Bus", "Train", "Bike"]),
    ]


def weighted_series(owner, waves: int = 2, margins: bool = True) -> list[Survey]:
    series = Series.objects.create(title="Yearly", remembered=False)
    surveys, lineages = [], {}
    for wave in range(1, waves + 1):
        survey = builder.create_survey(f"yearly-{wave}", f"Yearly, wave {wave}", specs(),
                                       status=Survey.Status.OPEN, epsilon_budget=20.0)
        Survey.objects.filter(pk=survey.pk).update(series=series, wave=wave)
        for question in survey.ordered_questions():
            lineage = lineages.setdefault(question.order, question.lineage)
            Question.objects.filter(pk=question.pk).update(lineage=lineage)
        survey.refresh_from_db()
        survey.researchers.add(owner)
        if margins:
            for order, shares in MARGINS[min(wave, 2)].items():
                enter(survey, order, shares)
        surveys.append(survey)
    return surveys


def answer_waves(surveys: list[Survey], sizes: list[int], seed: int) -> dict[int, dict[int, np.ndarray]]:
    """Store each wave's responses; {wave: {question order: the reports as ldp gives them, response i's at i}}."""
    rng = np.random.default_rng(seed)
    found = {}
    for survey, n in zip(surveys, sizes, strict=True):
        wave = min(survey.wave, 2)
        age = rng.choice(3, size=n, p=SAMPLE_AGE)
        region = (rng.random(n) >= SAMPLE_NORTH).astype(np.int64)  # 0 North, 1 South
        yes = (rng.random(n) < np.asarray(YES_BY_AGE[wave])[age]).astype(np.int64)
        cumulative = np.cumsum(np.asarray(CHOICE_BY_REGION[wave])[region], axis=1)
        choice = (rng.random(n)[:, None] > cumulative).sum(axis=1)
        ticks = (rng.random((n, 3)) < 0.4).astype(np.uint8)
        questions = {q.order: q.mechanism() for q in survey.ordered_questions()}
        truths = {1: yes, 2: age, 3: region, 4: choice, 5: ticks}
        reports = {order: questions[order].randomize(truths[order], rng) for order in questions}
        builder.write_responses(survey, {q.pk: questions[q.order].encode_many(reports[q.order])
                                         for q in survey.ordered_questions()})
        found[survey.wave] = reports
    return found

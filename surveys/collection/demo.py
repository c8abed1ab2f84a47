"""The demo survey: three sensitive questions and simulated respondents with a stated truth."""

from __future__ import annotations

import math
import uuid
from decimal import Decimal

import numpy as np
from django.db import transaction
from django.utils import timezone

from . import tallies
from .models import Option, Question, Report, Response, Survey

SLUG = "demo"
# The true distribution the simulated respondents answer from (researchers should recover it).
TRUTH = {
    1: [0.8, 0.2],  # no / yes
    2: [0.9, 0.1],
    3: [0.55, 0.25, 0.12, 0.08],
}
DRUG_OPTIONS = ["Never", "Less than once a month", "Monthly", "Weekly or more"]


@transaction.atomic
def create_demo_survey() -> tuple[Survey, bool]:
    survey, created = Survey.objects.get_or_create(slug=SLUG, defaults={
        "title": "Health and behaviour (demo)",
        "description": "A demonstration survey with sensitive questions. Please answer honestly: "
                       "your browser randomizes every answer before it is sent.",
        "status": Survey.Status.OPEN,
        "epsilon_budget": 3.5,
    })
    if not created:
        return survey, False
    Question.objects.create(survey=survey, order=1, kind="yes_no", mechanism_name="qrr", q=Decimal("0.5"),
                            text="Have you ever cheated on an exam?")
    Question.objects.create(survey=survey, order=2, kind="yes_no", mechanism_name="bitflip", epsilon=math.log(3),
                            text="In the past year, have you driven after drinking more than the legal limit?")
    drugs = Question.objects.create(survey=survey, order=3, kind="single_choice", mechanism_name="krr",
                                    epsilon=1.0, text="How often do you use recreational drugs?")
    Option.objects.bulk_create(Option(question=drugs, order=i, label=label) for i, label in enumerate(DRUG_OPTIONS))
    return survey, True


@transaction.atomic
def simulate_responses(survey: Survey, n: int, seed: int | None = None) -> int:
    """Add n responses randomized with ldp from TRUTH, exactly as browsers would."""
    rng = np.random.default_rng(seed)
    version = survey.mechanism_version()
    today = timezone.now().date()
    responses = [Response(survey=survey, mechanism_version=version, submitted_on=today,
                          submission_key=uuid.uuid4()) for _ in range(n)]
    Response.objects.bulk_create(responses, batch_size=1000)
    reports, pairs, counted = [], [], {}
    for question in survey.ordered_questions():
        mechanism = question.mechanism()
        truth = rng.choice(mechanism.k, size=n, p=TRUTH[question.order])
        randomized = mechanism.randomize(truth, rng)
        pairs.append((question, mechanism))
        counted[question.pk] = (np.asarray(mechanism.counts(randomized), dtype=np.int64), n)
        if randomized.ndim == 2:  # unary bits -> bitmask
            randomized = randomized.astype(np.int64) @ (1 << np.arange(mechanism.k, dtype=np.int64))
        reports += [Report(response=r, question=question, value=int(v)) for r, v in zip(responses, randomized)]
    Report.objects.bulk_create(reports, batch_size=2000)
    tallies.add(pairs, counted)  # the dashboards' counters, counted here in numpy
    return n

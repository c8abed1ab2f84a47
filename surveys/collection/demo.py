"""The demo survey: three sensitive questions and simulated respondents with a stated truth."""

from __future__ import annotations

import math

from django.db import transaction

from . import builder
from .builder import QuestionSpec
from .models import Survey

SLUG = "demo"
# The true distribution the simulated respondents answer from (researchers should recover it).
TRUTH = {
    1: [0.8, 0.2],  # no / yes
    2: [0.9, 0.1],
    3: [0.55, 0.25, 0.12, 0.08],
}
DRUG_OPTIONS = ["Never", "Less than once a month", "Monthly", "Weekly or more"]
QUESTIONS = [
    QuestionSpec("Have you ever cheated on an exam?", "qrr", q="0.5"),
    QuestionSpec("In the past year, have you driven after drinking more than the legal limit?", "bitflip",
                 epsilon=math.log(3)),
    QuestionSpec("How often do you use recreational drugs?", "krr", epsilon=1.0, options=DRUG_OPTIONS),
]


@transaction.atomic
def create_demo_survey() -> tuple[Survey, bool]:
    existing = Survey.objects.filter(slug=SLUG).first()
    if existing is not None:
        return existing, False
    survey = builder.create_survey(
        SLUG, "Health and behaviour (demo)", QUESTIONS, status=Survey.Status.OPEN, epsilon_budget=3.5,
        description="A demonstration survey with sensitive questions. Please answer honestly: "
                    "your browser randomizes every answer before it is sent.")
    return survey, True


def simulate_responses(survey: Survey, n: int, seed: int | None = None) -> int:
    """Add n responses randomized with ldp from TRUTH, exactly as browsers would."""
    return builder.simulate_responses(survey, n, TRUTH, seed)

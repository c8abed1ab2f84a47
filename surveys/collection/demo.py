"""The demo survey: three sensitive questions and simulated respondents with a stated truth."""

from __future__ import annotations

import math

from django.db import transaction

from . import builder
from .builder import QuestionSpec
from .demo_languages import CONSENT, TRANSLATIONS
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
        retention_days=365,
        description="A demonstration survey with sensitive questions. Please answer honestly: "
                    "your browser randomizes every answer before it is sent.", consent=CONSENT)
    for translation in TRANSLATIONS:
        builder.translate(survey, translation)
    return survey, True


def simulate_responses(survey: Survey, n: int, seed: int | None = None) -> int:
    """Add n responses randomized with ldp from TRUTH, exactly as browsers would."""
    return builder.simulate_responses(survey, n, TRUTH, seed)


# The question types demo (`manage.py demo --types`): one question of each new kind, with a stated truth.
TYPES_SLUG = "demo-types"
SUBSTANCES = ["Tobacco", "Alcohol", "Cannabis", "Sleeping pills", "Prefer not to say"]
STRESS = ["Never", "Rarely", "Sometimes", "Often", "Always", "Prefer not to say"]
AGE_EDGES = ["18", "25", "35", "50", "65"]
TYPES_QUESTIONS = [
    QuestionSpec("In the past month, which of these have you used? (at most two)", "multiselect", epsilon=2.4,
                 kind="multi_select", options=SUBSTANCES, at_most=2),
    QuestionSpec("How many hours a week do you spend online for leisure?", "onebit", epsilon=1.0,
                 kind="numeric", scale=("0", "80", "1")),
    QuestionSpec("How many alcoholic drinks did you have last week?", "dlaplace", epsilon=2.0,
                 kind="numeric", scale=("0", "30", "1")),
    QuestionSpec("How old are you?", "krr", epsilon=2.0, kind="numeric", scale=("18", "90", "1"),
                 options=["18 to 24", "25 to 34", "35 to 49", "50 to 64", "65 to 90"], edges=AGE_EDGES),
    QuestionSpec("How often do you feel stressed at work?", "krr", epsilon=2.0, kind="ordinal",
                 options=STRESS, scores=["1", "2", "3", "4", "5", None]),
]


def _bell(points: int, centre: float, spread: float) -> list[float]:
    weights = [math.exp(-((i - centre) / spread) ** 2 / 2) for i in range(points)]
    return [w / sum(weights) for w in weights]


TYPES_TRUTH = {
    1: [0.25, 0.55, 0.15, 0.05, 0.04],  # each option ticked independently (ticks past two dropped)
    2: _bell(81, 20, 8),  # hours 0..80: mean about 20
    3: _bell(31, 6, 4),  # drinks 0..30: mean about 6.6
    4: _bell(73, 22, 15),  # age 18..90, by year
    5: [0.1, 0.2, 0.35, 0.2, 0.1, 0.05],
}


@transaction.atomic
def create_types_survey() -> tuple[Survey, bool]:
    existing = Survey.objects.filter(slug=TYPES_SLUG).first()
    if existing is not None:
        return existing, False
    survey = builder.create_survey(
        TYPES_SLUG, "Question types (demo)", TYPES_QUESTIONS, status=Survey.Status.OPEN, epsilon_budget=10.0,
        retention_days=365,
        description="One question of each kind: multi-select, numeric (a mean, and bins), ordinal. Your browser "
                    "randomizes every answer before it is sent.")
    return survey, True


def simulate_types_responses(survey: Survey, n: int, seed: int | None = None) -> int:
    """Add n responses randomized with ldp from TYPES_TRUTH, exactly as browsers would."""
    return builder.simulate_responses(survey, n, TYPES_TRUTH, seed)

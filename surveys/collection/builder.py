"""Building surveys and filling them with simulated responses: one builder for the demo, the
benchmarks and the tests.

`simulate_responses` randomizes a stated truth with `ldp`, exactly as browsers would, and writes
the reports and their tallies in one transaction (bulk inserts, not the submission API).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone

from . import plan, tallies
from .models import Option, Question, Report, Response, Survey


@dataclass(frozen=True)
class QuestionSpec:
    """A question to create: yes/no when it has no options, single choice otherwise."""

    text: str
    mechanism: str
    q: Decimal | str | None = None  # q-randomized response only
    epsilon: float | None = None  # every other mechanism
    options: Sequence[str] = ()


@transaction.atomic
def create_survey(slug: str, title: str, questions: Iterable[QuestionSpec], **fields: Any) -> Survey:
    """A survey with its questions (order 1, 2, ...) and their options (order 0, 1, ...)."""
    survey = Survey.objects.create(slug=slug, title=title, **fields)
    for order, spec in enumerate(questions, start=1):
        question = Question.objects.create(
            survey=survey, order=order, text=spec.text, mechanism_name=spec.mechanism,
            kind=Question.Kind.SINGLE_CHOICE if spec.options else Question.Kind.YES_NO,
            q=None if spec.q is None else Decimal(spec.q), epsilon=spec.epsilon)
        Option.objects.bulk_create(Option(question=question, order=j, label=label)
                                   for j, label in enumerate(spec.options))
    return survey


@transaction.atomic
def write_responses(survey: Survey, values: Mapping[int, Sequence[int] | np.ndarray]) -> list[Response]:
    """Store len(column) responses from stored report values per question id (as the submission
    API would store them), with their tallies. Questions left out get no reports."""
    current = plan.of(survey)
    given = [q for q in current if q.id in values]
    n = len(next(iter(values.values()))) if values else 0
    responses = Response.objects.bulk_create(
        [Response(survey=survey, mechanism_version=current.version, submitted_on=timezone.now().date(),
                  submission_key=uuid.uuid4()) for _ in range(n)], batch_size=1000)
    Report.objects.bulk_create((Report(response=response, question_id=q.id, value=int(value))
                                for q in given for response, value in zip(responses, values[q.id], strict=True)),
                               batch_size=2000)
    tallies.add(given, {q.id: (_counts(q.mechanism, values[q.id]), n) for q in given})
    return responses


def randomized(survey: Survey, n: int, truth: Mapping[int, Sequence[float]], rng: np.random.Generator,
               ) -> dict[int, np.ndarray]:
    """Stored report values per question id for n respondents whose true answers follow `truth`
    (question order -> fractions; uniform where not given), randomized by ldp."""
    found = {}
    for q in plan.of(survey):
        k = q.mechanism.k
        answers = rng.choice(k, size=n, p=truth.get(q.order, [1 / k] * k))
        found[q.id] = q.mechanism.encode_many(q.mechanism.randomize(answers, rng))
    return found


def simulate_responses(survey: Survey, n: int, truth: Mapping[int, Sequence[float]],
                       seed: int | None = None) -> int:
    """Add n responses randomized from `truth`, exactly as browsers would."""
    write_responses(survey, randomized(survey, n, truth, np.random.default_rng(seed)))
    return n


def _counts(mechanism: Any, values: Sequence[int] | np.ndarray) -> np.ndarray:
    distinct, counts = np.unique(np.asarray(values, dtype=np.int64), return_counts=True)
    return mechanism.tally(distinct, counts)

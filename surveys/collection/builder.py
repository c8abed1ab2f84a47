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
from django.db import connection, transaction
from django.utils import timezone

from . import answer_rows, cell_tallies, kinds, pair_tallies, plan, tallies
from .kinds import single_choice, yes_no
from .models import (
    Option,
    OptionTranslation,
    Question,
    QuestionTranslation,
    Report,
    Response,
    Survey,
    SurveyTranslation,
)
from .models.keys import report_keys
from .store import RESPONSE_COLUMNS


@dataclass(frozen=True)
class QuestionSpec:
    """A question to create: yes/no when it has no options, single choice otherwise, unless `kind`
    says (multi_select, numeric, ordinal). A numeric question has `scale` (lo, hi, step) and, for a
    histogram (krr), `edges` (each bin's lower edge, one per option); an ordinal one `scores` (one per
    level, None for a level left out of the mean)."""

    text: str
    mechanism: str
    q: Decimal | str | None = None  # q-randomized response only: a decimal or a fraction ("2/3")
    epsilon: float | None = None  # every other mechanism
    options: Sequence[str] = ()
    kind: str | None = None
    scale: tuple[str, str, str] | None = None
    at_most: int | None = None
    edges: Sequence[str] = ()
    scores: Sequence[str | None] = ()
    exclusive: Sequence[str] = ()  # a multi-select's options ticked alone, by label
    name: str = ""  # its column in the exports (blank: q<order>)
    hint: str = ""  # a few words shown under the question
    relevant: str = ""  # skip logic: asked only when this holds for the direct answers above it
    choice_names: Sequence[str] = ()  # its options' XLSForm choice names (blank: made from their labels)

    @property
    def question_kind(self) -> str:
        return self.kind or (single_choice.KIND if self.options else yes_no.KIND).name


@transaction.atomic
def create_survey(slug: str, title: str, questions: Iterable[QuestionSpec], **fields: Any) -> Survey:
    """A survey with its questions (order 1, 2, ...) and their options (order 0, 1, ...)."""
    survey = Survey.objects.create(slug=slug, title=title, **fields)
    for order, spec in enumerate(questions, start=1):
        question = Question(survey=survey, order=order, text=spec.text, hint=spec.hint, mechanism_name=spec.mechanism,
                            kind=spec.question_kind, q=spec.q,
                            epsilon=spec.epsilon, at_most=spec.at_most, name=spec.name, relevant=spec.relevant)
        if spec.scale:
            question.lo, question.hi, question.step = (Decimal(x) for x in spec.scale)
        question.save()
        Option.objects.bulk_create(_option(question, j, label, spec) for j, label in enumerate(spec.options))
    return survey


@dataclass(frozen=True)
class TranslationSpec:
    """A survey's texts in another language: its questions' texts in order, and the options' labels
    of the questions that have options (by question order)."""

    language: str
    title: str
    questions: Sequence[str]
    options: Mapping[int, Sequence[str]]
    description: str = ""
    consent: str = ""


@transaction.atomic
def translate(survey: Survey, spec: TranslationSpec) -> None:
    """Offer `survey` in `spec.language` with these texts."""
    SurveyTranslation.objects.create(survey=survey, language=spec.language, title=spec.title,
                                     description=spec.description, consent=spec.consent)
    for question, text in zip(survey.ordered_questions(), spec.questions, strict=True):
        QuestionTranslation.objects.create(question=question, language=spec.language, text=text)
        labels = spec.options.get(question.order, ())
        OptionTranslation.objects.bulk_create(
            OptionTranslation(option=option, language=spec.language, label=label)
            for option, label in zip(question.ordered_options(), labels, strict=True))


def _option(question: Question, order: int, label: str, spec: QuestionSpec) -> Option:
    option = Option(question=question, order=order, label=label, exclusive=label in spec.exclusive,
                    name=spec.choice_names[order] if spec.choice_names else "")
    if spec.edges:
        option.lower = Decimal(spec.edges[order])
    score = spec.scores[order] if spec.scores else None
    if score is not None:
        option.score = Decimal(score)
    return option


@transaction.atomic
def write_responses(survey: Survey, values: Mapping[int, Sequence[int] | np.ndarray]) -> list[uuid.UUID]:
    """Store len(column) responses from stored report values per question id (as the submission
    API would store them), with their tallies and their watched pairs' and cells' counts, in one transaction;
    their ids. Questions left out get no reports."""
    current = plan.of(survey)
    given = [q for q in current if q.id in values]
    n = len(next(iter(values.values()))) if values else 0
    columns = [[int(value) for value in values[q.id]] for q in given]
    if any(len(column) != n for column in columns):
        raise ValueError("one value per response for each question")
    ids = [uuid.uuid4() for _ in range(n)]
    stored = [Response._meta.pk.get_db_prep_value(id, connection) for id in ids]  # SQLite: hex text
    # Each response's answers when it has every question's report (else NULL, as for rows written by hand).
    answers: list[str | None] = ([answer_rows.joined(row) for row in zip(*columns, strict=True)]
                                 if len(given) == len(current) else [None] * n)
    _insert_rows(Response, RESPONSE_COLUMNS, _response_rows(survey, current.version, stored, answers))
    _insert_rows(Report, "id, response_id, question_id, value",
                 [(key, response, q.id, column[i]) for i, response in enumerate(stored)
                  for key, q, column in zip(report_keys(len(given)), given, columns, strict=True)])
    tallies.add(given, {q.id: (_counts(q, values[q.id]), n) for q in given})
    pair_tallies.add(given, values)
    cell_tallies.add(given, values)
    return ids


def _response_rows(survey: Survey, version: str, stored: list[Any], answers: list[str | None]) -> list[tuple[Any, ...]]:
    """The rows of responses with these stored ids and answers, as the store writes them."""
    day = connection.ops.adapt_datefield_value(timezone.now().date())
    key = Response._meta.get_field("submission_key")
    return [(id, survey.pk, version, day, key.get_db_prep_value(uuid.uuid4(), connection), False, text)
            for id, text in zip(stored, answers, strict=True)]


def _insert_rows(model: type[Response] | type[Report], columns: str, rows: list[tuple[Any, ...]]) -> None:
    # Plain executemany: the ORM's bulk_create builds a model object per row, which cost the test suite more
    # than the writes (a third of the time, measured).
    if not rows:
        return
    table = connection.ops.quote_name(model._meta.db_table)
    marks = ", ".join(["%s"] * len(rows[0]))
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)


def true_answers(question: plan.PlannedQuestion, n: int, truth: Sequence[float] | None,
                 rng: np.random.Generator) -> np.ndarray:
    """n true answers as the question's mechanism takes them, drawn from `truth` (uniform if None):
    an option index from its fractions; for a multi-select, each option ticked with its own probability
    (ticks past the at-most limit dropped, last first: an (n, k) array of bits); for a numeric question, a
    grid index from fractions over the grid lo..hi, then for a histogram its bin."""
    mechanism = question.mechanism
    if kinds.kind_of(question).many:
        chances = np.asarray(truth if truth is not None else [0.5] * mechanism.k)
        bits = (rng.random((n, mechanism.k)) < chances).astype(np.uint8)
        limit = mechanism.to_dict()["at_most"]
        if limit is not None:
            bits[np.cumsum(bits, axis=1) > limit] = 0
        return bits
    if question.scale is not None:
        points = question.scale.steps + 1
        index = rng.choice(points, size=n, p=truth if truth is not None else [1 / points] * points)
        if not question.histogram:  # a mean's grid index (a direct number's bins are for the analysis only)
            return index
        return np.searchsorted(np.asarray(question.edge_indexes), index, side="right") - 1
    k = mechanism.k
    return rng.choice(k, size=n, p=truth if truth is not None else [1 / k] * k)


def randomized(survey: Survey, n: int, truth: Mapping[int, Sequence[float]], rng: np.random.Generator,
               ) -> dict[int, np.ndarray]:
    """Stored report values per question id for n respondents whose true answers follow `truth`
    (question order -> fractions, see `true_answers`; uniform where not given), randomized by ldp."""
    found = {}
    for q in plan.of(survey):
        answers = true_answers(q, n, truth.get(q.order), rng)
        found[q.id] = q.mechanism.encode_many(q.mechanism.randomize(answers, rng))
    return found


def simulate_responses(survey: Survey, n: int, truth: Mapping[int, Sequence[float]],
                       seed: int | None = None) -> int:
    """Add n responses randomized from `truth`, exactly as browsers would."""
    write_responses(survey, randomized(survey, n, truth, np.random.default_rng(seed)))
    return n


def _counts(question: plan.PlannedQuestion, values: Sequence[int] | np.ndarray) -> np.ndarray:
    distinct, counts = np.unique(np.asarray(values, dtype=np.int64), return_counts=True)
    return question.mechanism.tally(distinct, counts)[:tallies.width(question)]

"""A survey's plan: its questions in order, each with its mechanism, and the version digest.

Everything that reads reports (submission, tallies, results, exports, the public definition)
works from this one typed description, built in one place from one query. The plan is a pure
function of the question and option rows, so it is memoized on those rows themselves: any change
to a row is a different cache key and there is nothing to invalidate. A submission pays one
query per request, not loading model instances and rebuilding mechanisms.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from decimal import Decimal
from functools import lru_cache

from django.db import connection

from ldp.mechanisms import remembered
from surveys import refusals

from . import kinds, relevance, scales, skip_logic
from . import prepared_statements as prepared
from .models import Option, Question, Series, Survey

# The plan's types live in `planned`; named here too, where every reader of a plan finds them.
from .planned import PlannedQuestion as PlannedQuestion
from .planned import Remembering as Remembering
from .planned import SurveyPlan as SurveyPlan

Rows = tuple[tuple, ...]


class Unavailable(refusals.Refusal):
    """A survey's stored configuration or counts cannot be read soundly (only possible for
    surveys edited outside the admin): there is nothing sound to randomize or compute with."""

    code = refusals.UNAVAILABLE

    def __init__(self, reason: str):
        super().__init__("survey", reason)


def of(survey: Survey | int) -> SurveyPlan:
    """The survey's plan (one query); Unavailable if a question's mechanism cannot be built."""
    survey_id = survey if isinstance(survey, int) else survey.pk
    return build(rows_of([survey_id]).get(survey_id, ()))


def of_many(survey_ids: Iterable[int]) -> dict[int, SurveyPlan | Unavailable]:
    """Plans of several surveys from one query; a survey whose plan cannot be built maps to its error."""
    found: dict[int, SurveyPlan | Unavailable] = {}
    for survey_id, rows in rows_of(list(survey_ids)).items():
        try:
            found[survey_id] = build(rows)
        except Unavailable as error:
            found[survey_id] = error
    return found


# A question's permanent layer counts only in a wave of a series that remembers (`Survey.remembers`): the
# subquery says whether its survey's series does (NULL outside a series).
QUESTION_COLUMNS = ("q.id, q.{order}, q.text, q.kind, q.mechanism_name, q.q, q.epsilon, q.lo, q.hi, q.step, q.at_most, "
                    "q.permanent_q, q.permanent_epsilon, q.name, q.relevant, (SELECT sr.remembered FROM {survey} sv "
                    "JOIN {series} sr ON sr.id = sv.series_id WHERE sv.id = q.survey_id), o.label, o.score, o.lower, "
                    "o.name")


def _tables() -> dict[str, str]:
    quote = connection.ops.quote_name
    return {"survey": quote(Survey._meta.db_table), "question": quote(Question._meta.db_table),
            "option": quote(Option._meta.db_table), "order": quote("order"),
            "series": quote(Series._meta.db_table)}


def _question_row(row: tuple | list) -> tuple:
    # q is exact text ("0.5", "2/3": `models.exact_q`), which the kind reads (and refuses if it is no number
    # the browser samples exactly: Unavailable); the other decimals are exact decimal text, which SQLite
    # hands back as floats, whose repr is that text (`scales.exact` reads both databases' forms the same).
    (pk, order, text, kind, name, q, epsilon, lo, hi, step, at_most, permanent_q, permanent_epsilon, variable,
     relevant, remembers, label, score, lower, choice) = row
    lo, hi, step, score, lower = (None if x is None else scales.exact(x) for x in (lo, hi, step, score, lower))
    if not remembers:  # outside a series that remembers, a permanent layer is not used
        permanent_q = permanent_epsilon = None
    return (pk, order, text, kind, name, q, epsilon, lo, hi, step, at_most, permanent_q, permanent_epsilon, variable,
            relevant, label, score, lower, choice)


def rows_of(survey_ids: list[int]) -> dict[int, Rows]:
    """Every question row joined to its options, in order, per survey: the whole input of `build`.

    Raw SQL: a submission runs this on every request, and the ORM's query building cost
    more than the query."""
    found: dict[int, list[tuple]] = {survey_id: [] for survey_id in survey_ids}
    if not survey_ids:
        return {}
    t = _tables()
    marks = ", ".join(["%s"] * len(survey_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT q.survey_id, {QUESTION_COLUMNS.format(**t)} FROM {t['question']} q "
            f"LEFT JOIN {t['option']} o ON o.question_id = q.id WHERE q.survey_id IN ({marks}) "
            f"ORDER BY q.survey_id, q.{t['order']}, o.{t['order']}", survey_ids)
        for survey_id, *row in cursor.fetchall():
            found[survey_id].append(_question_row(row))
    return {survey_id: tuple(rows) for survey_id, rows in found.items()}


def published(slug: str) -> tuple[Survey, SurveyPlan] | None:
    """A published survey (open or closed, not a draft) and its plan, from one query: all a
    submission reads. The survey's columns are converted as the ORM converts them."""
    with prepared.cursor() as cursor:  # the same statement on every submission
        cursor.execute(_published_sql(connection.vendor), [slug, Survey.Status.DRAFT])
        rows = cursor.fetchall()
    if not rows:
        return None
    fields = [field.attname for field in Survey._meta.concrete_fields]
    width = len(fields)
    survey = Survey.from_db(connection.alias, fields, _survey_values(connection.vendor, rows[0][:width]))
    questions = tuple(_question_row(row[width:]) for row in rows if row[width] is not None)
    return survey, build(questions)


# Every submission runs `published`: the SQL text and the conversion of the survey's row (the
# same few rows again and again) are memoized, as the plan itself is.
@lru_cache(maxsize=4)
def _published_sql(vendor: str) -> str:
    t = _tables()
    quote = connection.ops.quote_name
    columns = ", ".join(f"s.{quote(field.column or field.name)}" for field in Survey._meta.concrete_fields)
    return (f"SELECT {columns}, {QUESTION_COLUMNS.format(**t)} FROM {t['survey']} s "
            f"LEFT JOIN {t['question']} q ON q.survey_id = s.id LEFT JOIN {t['option']} o ON o.question_id = q.id "
            f"WHERE s.slug = %s AND s.status <> %s ORDER BY q.{t['order']}, o.{t['order']}")


@lru_cache(maxsize=256)
def _survey_values(vendor: str, row: tuple) -> tuple:
    values = []
    for field, value in zip(Survey._meta.concrete_fields, row, strict=True):
        column = field.get_col(Survey._meta.db_table)
        for convert in connection.ops.get_db_converters(column) + column.get_db_converters(connection):
            value = convert(value, column, connection)
        values.append(value)
    return tuple(values)


@lru_cache(maxsize=256)
def build(rows: Rows) -> SurveyPlan:
    """The plan of (question id, order, text, kind, mechanism name, q, epsilon, lo, hi, step, at_most,
    permanent q, permanent epsilon (both None unless remembered), name, condition, option label, score, lower edge,
    choice name) rows."""
    questions, options = _questions(rows)
    return SurveyPlan(_digest(questions, options), tuple(questions))


Options = dict[int, list[tuple[str, Decimal | None, Decimal | None, str]]]


def _questions(rows: Rows) -> tuple[list[PlannedQuestion], Options]:
    fields: dict[int, tuple] = {}
    options: Options = {}
    for pk, *question, label, score, lower, choice in rows:
        fields.setdefault(pk, tuple(question))
        options.setdefault(pk, [])
        if label is not None:
            options[pk].append((label, score, lower, choice or ""))
    return [_planned(pk, fields[pk], options[pk]) for pk in fields], options


def _digest(questions: list[PlannedQuestion], options: Options) -> str:
    # The digest covers the configured parameters, the sampler's integers themselves (what the
    # browser randomizes with: a change of rounding between releases is a new version), the labels,
    # and for numeric and ordinal questions their scale, bins and scores. A remembered question's `to_dict` adds its
    # permanent layer (no other question's digest changes).
    definition = [[q.id, q.kind, q.mechanism.to_dict(), [label for label, *_ in options[q.id]], *_extra(q),
                   {"sampler": q.mechanism.sampler()}] for q in questions]
    return hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]


def _planned(pk: int, fields: tuple, options: list[tuple[str, Decimal | None, Decimal | None, str]]) -> PlannedQuestion:
    """One question from its fields (as `build` lists them) and its options (label, score, lower edge, name)."""
    (order, text, kind_name, name, q, epsilon, lo, hi, step, at_most, permanent_q, permanent_epsilon, variable,
     relevant) = fields
    kind = kinds.find(kind_name)
    if kind is None:
        raise Unavailable(f"question {order}: no kind of question is called {kind_name!r}")
    scale = scales.scale_of(lo, hi, step) if kind.scale else None
    if kind.scale and scale is None:
        raise Unavailable(f"question {order}: its lo, hi and step do not make a grid of answers")
    try:
        mechanism = kind.build(name, q, epsilon, len(options), scale=scale, at_most=at_most)
        if permanent_q is not None or permanent_epsilon is not None:  # each report is read through both layers
            permanent = kind.build(name, permanent_q, permanent_epsilon, len(options), scale=scale, at_most=at_most)
            mechanism = remembered.composed(remembered.Remembered(permanent=permanent, instant=mechanism))
    except (ValueError, TypeError) as error:
        raise Unavailable(f"question {order}: {error}") from None
    labels = tuple(label for label, *_ in options) if kind.has_options(name) else ()
    edges: tuple[Decimal, ...] = ()
    if kind.scale and kind.has_options(name) and (options or not kind.options_optional(name)):
        found = [lower for *_, lower, _name in options]
        problems = scales.bin_problems(scale, found)  # type: ignore[arg-type]  # scale is set above
        if problems:
            raise Unavailable(f"question {order}: {' '.join(problems)}")
        edges = tuple(edge for edge in found if edge is not None)
    scores = tuple(score for _, score, *_ in options) if kind.scored else ()
    choices = tuple(skip_logic.choice_names(labels, [option[3] for option in options])) if labels else ()
    try:
        relevance.parse(relevant) if relevant else None
    except relevance.ConditionError as error:
        raise Unavailable(f"question {order}: {error}") from None
    return PlannedQuestion(pk, order, text, kind_name, tuple(kind.labels(labels)), mechanism, scale, edges, scores,
                           name=variable, relevant=relevant or "", choices=choices)


def _extra(question: PlannedQuestion) -> list[dict[str, object]]:
    """What the digest adds for numeric and ordinal questions: the scale, the bins' edges, the levels' scores."""
    found: dict[str, object] = {}
    if question.scale is not None:
        found["scale"] = question.scale.as_dict()
    if question.edges:
        found["edges"] = [str(edge) for edge in question.edges]
    if question.scores:
        found["scores"] = [None if score is None else str(score) for score in question.scores]
    if question.relevant:  # only then: a survey without skip logic keeps its version
        found["relevant"] = question.relevant
    return [found] if found else []

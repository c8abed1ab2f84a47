"""A survey's blueprint: its version digest and (question id, mechanism) pairs, from one query.

A submission is checked against the blueprint. Both the digest and the mechanisms are a pure
function of the question and option rows, so they are memoized on those rows themselves: any
change to a row is a different cache key, and there is nothing to invalidate. What a
submission pays per request is one query, not loading model instances and rebuilding
mechanisms.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from django.db import connection

import ldp

from .models import Option, Question, build_mechanism


@dataclass(frozen=True)
class Blueprint:
    version: str  # what Response.mechanism_version stores; Survey.mechanism_version()
    pairs: tuple[tuple[int, ldp.Mechanism], ...]  # (question id, mechanism) in question order


def rows_of(survey_id: int) -> tuple:
    """Every question row joined to its options, in order: the whole input of `build`.

    Raw SQL: a submission runs this on every request, and the ORM's query building cost
    more than the query."""
    question, option = (connection.ops.quote_name(m._meta.db_table) for m in (Question, Option))
    order = connection.ops.quote_name("order")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT q.id, q.kind, q.mechanism_name, q.q, q.epsilon, o.label FROM {question} q "
            f"LEFT JOIN {option} o ON o.question_id = q.id WHERE q.survey_id = %s "
            f"ORDER BY q.{order}, o.{order}", [survey_id])
        # q is exact decimal text: SQLite hands it back as a float, whose repr is that text.
        return tuple((pk, kind, name, None if q is None else Decimal(str(q)), epsilon, label)
                     for pk, kind, name, q, epsilon, label in cursor.fetchall())


@lru_cache(maxsize=256)
def build(rows: tuple) -> Blueprint:
    """Digest of everything that determines how reports are made and read, and the mechanisms.

    Raises ValueError if a question's mechanism cannot be built."""
    questions: dict[int, list] = {}
    for pk, kind, name, q, epsilon, label in rows:
        questions.setdefault(pk, [kind, name, q, epsilon, []])
        if label is not None:
            questions[pk][4].append(label)
    pairs = tuple((pk, build_mechanism(name, kind, q, epsilon, len(labels)))
                  for pk, (kind, name, q, epsilon, labels) in questions.items())
    definition = [[pk, questions[pk][0], mechanism.to_dict(), questions[pk][4]] for pk, mechanism in pairs]
    digest = hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()
    return Blueprint(digest[:16], pairs)


def of(survey_id: int) -> Blueprint:
    return build(rows_of(survey_id))

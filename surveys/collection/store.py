"""Writing one response, all or nothing: the invitation spent (invitation-only surveys), the
response row, its reports and its tallies.

PostgreSQL does it in one statement of data-modifying CTEs: one round trip instead of six
(BEGIN, four statements, COMMIT), which is most of a submission's cost there. Elsewhere
(SQLite, where a statement costs no round trip) the ORM writes in one transaction.
Either way the invitation is spent by a conditional UPDATE that only one of any number of
concurrent submissions can win, and a failure anywhere leaves nothing written.
"""

from __future__ import annotations

import uuid
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db import connection, transaction

from . import tallies
from .models import Invitation, Report, Response, Survey
from .plan import PlannedQuestion


class NotSpent(Exception):
    """The invitation was used or unknown: nothing was written."""


@dataclass(frozen=True)
class NewResponse:
    """A checked response, ready to write: one stored value per planned question."""

    survey: Survey
    id: uuid.UUID
    key: uuid.UUID
    version: str
    day: date
    questions: tuple[PlannedQuestion, ...]
    values: dict[int, int]  # question id -> stored value
    token_digest: str | None  # None: no invitation to spend


def store_response(new: NewResponse) -> None:
    """Write `new`; NotSpent if its invitation cannot be spent, IntegrityError if its key is taken."""
    if connection.vendor == "postgresql":
        _in_one_statement(new)
    else:
        _with_the_orm(new)


def spend_sql(new: NewResponse) -> tuple[str, list[Any]]:
    """The guard: an UPDATE that spends the invitation only if it is unused, returning a row
    if it did. The database serializes concurrent updates of the row, so one wins."""
    table = connection.ops.quote_name(Invitation._meta.db_table)
    return (f"UPDATE {table} SET used = true WHERE survey_id = %s AND token_digest = %s AND NOT used "
            "RETURNING 1", [new.survey.pk, new.token_digest])


def _with_the_orm(new: NewResponse) -> None:
    with transaction.atomic():
        if new.token_digest is not None:
            with connection.cursor() as cursor:
                cursor.execute(*spend_sql(new))
                if not cursor.fetchall():
                    raise NotSpent
        Response.objects.create(id=new.id, survey=new.survey, mechanism_version=new.version,
                                submission_key=new.key, submitted_on=new.day)
        Report.objects.bulk_create(Report(response_id=new.id, question_id=q.id, value=new.values[q.id])
                                   for q in new.questions)
        tallies.record(new.questions, new.values)


def _in_one_statement(new: NewResponse) -> None:
    table = {model: connection.ops.quote_name(model._meta.db_table) for model in (Response, Report)}
    spent, params = ("SELECT 1", []) if new.token_digest is None else spend_sql(new)
    params += [new.id, new.survey.pk, new.version, new.day, new.key]
    reports = ", ".join(["(%s, %s)"] * len(new.questions))
    params += [value for q in new.questions for value in (q.id, new.values[q.id])]
    keys = tallies.keys_of(new.questions, new.values)
    counts = ", ".join(["(%s, %s)"] * len(keys))
    params += [tallies.random_shard(), *[value for key in keys for value in key]]
    counted = tallies.upsert_sql(f"SELECT v.question_id, v.slot, %s, 1 FROM response CROSS JOIN "
                                 f"(VALUES {counts}) AS v (question_id, slot) ORDER BY v.question_id, v.slot")
    sql = (
        f"WITH spent AS ({spent}), "
        f"response AS (INSERT INTO {table[Response]} (id, survey_id, mechanism_version, submitted_on, "
        f"submission_key) SELECT %s, %s, %s, %s, %s FROM spent RETURNING id), "
        f"reports AS (INSERT INTO {table[Report]} (response_id, question_id, value) "
        f"SELECT response.id, v.question_id, v.value FROM response CROSS JOIN (VALUES {reports}) "
        f"AS v (question_id, value)), "
        f"counted AS ({counted}) "
        "SELECT count(*) FROM response"
    )
    # One statement is a transaction by itself: no BEGIN and COMMIT round trips. Inside a
    # caller's transaction, a savepoint keeps that transaction usable after a refusal.
    with transaction.atomic() if connection.in_atomic_block else nullcontext(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.fetchone()[0] != 1:
            raise NotSpent

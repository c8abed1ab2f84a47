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

from django.db import connection, transaction

from . import tallies
from .models import Invitation, Report, Response, Survey


class NotSpent(Exception):
    """The invitation was used or unknown: nothing was written."""


@dataclass(frozen=True)
class Row:
    """The response to write: `pairs` (question id, mechanism), `values` question id -> value."""

    survey: Survey
    id: uuid.UUID
    key: uuid.UUID
    version: str
    day: date
    pairs: tuple
    values: dict
    token_digest: str | None  # None: no invitation to spend


def store_response(row: Row) -> None:
    """Write `row`; NotSpent if its invitation cannot be spent, IntegrityError if its key is taken."""
    if connection.vendor == "postgresql":
        _in_one_statement(row)
    else:
        _with_the_orm(row)


def spend_sql(row: Row) -> tuple[str, list]:
    """The guard: an UPDATE that spends the invitation only if it is unused, returning a row
    if it did. The database serializes concurrent updates of the row, so one wins."""
    table = connection.ops.quote_name(Invitation._meta.db_table)
    return (f"UPDATE {table} SET used = true WHERE survey_id = %s AND token_digest = %s AND NOT used "
            "RETURNING 1", [row.survey.pk, row.token_digest])


def _with_the_orm(row: Row) -> None:
    with transaction.atomic():
        if row.token_digest is not None:
            with connection.cursor() as cursor:
                cursor.execute(*spend_sql(row))
                if not cursor.fetchall():
                    raise NotSpent
        Response.objects.create(id=row.id, survey=row.survey, mechanism_version=row.version,
                                submission_key=row.key, submitted_on=row.day)
        Report.objects.bulk_create(Report(response_id=row.id, question_id=pk, value=row.values[pk])
                                   for pk, _ in row.pairs)
        tallies.record(row.pairs, row.values)


def _in_one_statement(row: Row) -> None:
    table = {model: connection.ops.quote_name(model._meta.db_table) for model in (Response, Report)}
    spent, params = ("SELECT 1", []) if row.token_digest is None else spend_sql(row)
    params += [row.id, row.survey.pk, row.version, row.day, row.key]
    reports = ", ".join(["(%s, %s)"] * len(row.pairs))
    params += [value for pk, _ in row.pairs for value in (pk, row.values[pk])]
    keys = tallies.keys_of(row.pairs, row.values)
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

"""Writing one response, all or nothing: the invitation spent (invitation-only surveys), the
response row, its reports and its tallies.

PostgreSQL does it in one statement of data-modifying CTEs: one round trip instead of six
(BEGIN, four statements, COMMIT), which is most of a submission's cost there; the statement is
prepared once per connection (`prepared`). Elsewhere
(SQLite, where a statement costs no round trip) plain statements write in one transaction.
Either way the invitation is spent by a conditional UPDATE that only one of any number of
concurrent submissions can win, and a failure anywhere leaves nothing written.
"""

from __future__ import annotations

import fcntl
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from django.db import connection, transaction

from . import answer_rows, cell_tallies, pair_tallies, tallies
from . import prepared_statements as prepared
from .models import Invitation, Report, Response, Survey
from .models.keys import random_key, report_keys
from .plan import PlannedQuestion


class NotSpent(Exception):
    """The invitation was used or unknown: nothing was written."""


@dataclass(frozen=True)
class NewResponse:
    """A checked response, ready to write: one stored value per question asked (skip logic may leave some out)."""

    survey: Survey
    id: uuid.UUID
    key: uuid.UUID
    version: str
    day: date
    questions: tuple[PlannedQuestion, ...]
    values: dict[int, int]  # question id -> stored value
    token_digest: str | None  # None: no invitation to spend
    earlier_wave: bool = False  # the browser's word that it answered an earlier wave of the series
    every_question: bool = True  # asked every question of its plan: its answers' row (`answer_rows`) is kept


def store_response(new: NewResponse) -> None:
    """Write `new`; NotSpent if its invitation cannot be spent, IntegrityError if its key is taken."""
    if connection.vendor == "postgresql":
        _in_one_statement(new)
    else:
        _in_one_transaction(new)


def spend_sql(new: NewResponse) -> tuple[str, list[Any]]:
    """The guard: an UPDATE that spends the invitation only if it is unused, returning a row
    if it did. The database serializes concurrent updates of the row, so one wins."""
    table = connection.ops.quote_name(Invitation._meta.db_table)
    return (f"UPDATE {table} SET used = true WHERE survey_id = %s AND token_digest = %s AND NOT used "
            "RETURNING 1", [new.survey.pk, new.token_digest])


RESPONSE_COLUMNS = "id, survey_id, mechanism_version, submitted_on, submission_key, earlier_wave, answers"
RESPONSE_MARKS = ", ".join(["%s"] * len(RESPONSE_COLUMNS.split(", ")))
_LOCKS: dict[str, int] = {}  # database file -> the descriptor of its lock file, kept open by the process


def lock_path(database: str) -> Path:
    """Beside the database file (resolved as SQLite resolves it), never in a shared directory
    where another local user could create the name first and hold the lock. Not `<database>.lock`:
    SQLite's dot-file locking uses that name."""
    return Path(f"{database}-writers.lock")


def open_lock(database: str) -> int:
    """The lock file's descriptor: created for the app's user alone, never through a symbolic
    link planted in its place (OSError), and made private if an older file was not."""
    descriptor = os.open(lock_path(database), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(descriptor, 0o600)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


@contextmanager
def _one_writer() -> Iterator[None]:
    """SQLite takes one writer at a time and makes the others poll, sleeping 1, 2, 5, 10... ms
    between tries while a writer needs a fraction of a millisecond: under load the cores idle.
    Submissions queue on a file lock instead, which the kernel hands to the next one at once
    (a queueing aid only: SQLite's own lock still guards every writer). Not for an in-memory
    database (nothing to name a file after) or a URI name (which may be one)."""
    name = str(connection.settings_dict["NAME"])
    if connection.vendor != "sqlite" or name == ":memory:" or name.startswith("file:"):
        yield
        return
    if name not in _LOCKS:
        _LOCKS[name] = open_lock(name)
    fcntl.flock(_LOCKS[name], fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(_LOCKS[name], fcntl.LOCK_UN)


def _response_values(new: NewResponse) -> list[Any]:
    """The response row's values as the database takes them (SQLite keeps UUIDs as hex text)."""
    fields = Response._meta
    return [fields.pk.get_db_prep_value(new.id, connection), new.survey.pk, new.version,
            connection.ops.adapt_datefield_value(new.day),
            fields.get_field("submission_key").get_db_prep_value(new.key, connection), new.earlier_wave,
            answer_rows.text(new.questions, new.values) if new.every_question else None]


def _in_one_transaction(new: NewResponse) -> None:
    # Plain statements (the ORM's create and bulk_create cost more than the statements), all made
    # before the write lock is taken, so that it is held for the writes alone.
    table = {model: connection.ops.quote_name(model._meta.db_table) for model in (Response, Report)}
    response = _response_values(new)
    # SQLite numbers the rows of a table without an INTEGER key (the response's is a UUID) in
    # arrival order unless told otherwise: a random rowid stores them in no order.
    rowid = ("rowid, ", [random_key()]) if connection.vendor == "sqlite" else ("", [])
    statements = [
        (f"INSERT INTO {table[Response]} ({rowid[0]}{RESPONSE_COLUMNS}) VALUES ({'%s, ' * len(rowid[1])}"
         f"{RESPONSE_MARKS})", rowid[1] + response),
        (f"INSERT INTO {table[Report]} (id, response_id, question_id, value) VALUES "
         + ", ".join(["(%s, %s, %s, %s)"] * len(new.questions)),
         [value for key, q in zip(report_keys(len(new.questions)), new.questions, strict=True)
          for value in (key, response[0], q.id, new.values[q.id])]),
        tallies.count_sql(new.questions, new.values),
        pair_tallies.count_sql(new.questions, new.values, tallies.random_shard()),
        cell_tallies.count_sql(new.values, tallies.random_shard()),
    ]
    if new.token_digest is not None:
        statements.insert(0, spend_sql(new))
    with _one_writer():
        if connection.vendor == "sqlite" and connection.get_autocommit():
            _sqlite_transaction(statements)
            return
        with transaction.atomic(), connection.cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
                if sql.endswith("RETURNING 1") and not cursor.fetchall():
                    raise NotSpent


def _sqlite_transaction(statements: list[tuple[str, list[Any]]]) -> None:
    """BEGIN, the statements, COMMIT on the sqlite3 connection itself: Django's atomic() and
    cursor wrappers cost more than the writes (the lock is ours already, see `_one_writer`).
    Errors are Django's (IntegrityError for a taken key) and roll everything back."""
    connection.ensure_connection()
    raw = connection.connection
    with connection.wrap_database_errors:
        raw.execute("BEGIN IMMEDIATE")
        try:
            for sql, params in statements:
                rows = raw.execute(sql.replace("%s", "?"), params).fetchall()
                if sql.endswith("RETURNING 1") and not rows:
                    raise NotSpent
        except BaseException:
            raw.execute("ROLLBACK")
            raise
        raw.execute("COMMIT")


def _in_one_statement(new: NewResponse) -> None:
    table = {model: connection.ops.quote_name(model._meta.db_table) for model in (Response, Report)}
    spent, params = ("SELECT 1", []) if new.token_digest is None else spend_sql(new)
    params += _response_values(new)
    reports = ", ".join(["(%s, %s, %s)"] * len(new.questions))
    params += [value for key, q in zip(report_keys(len(new.questions)), new.questions, strict=True)
               for value in (key, q.id, new.values[q.id])]
    keys = tallies.keys_of(new.questions, new.values)
    counts = ", ".join(["(%s, %s)"] * len(keys))
    params += [tallies.random_shard(), *[value for key in keys for value in key]]
    counted = tallies.upsert_sql(f"SELECT v.question_id, v.slot, %s, 1 FROM response CROSS JOIN "
                                 f"(VALUES {counts}) AS v (question_id, slot) ORDER BY v.question_id, v.slot")
    # The watched pairs' cells, after every tally row is locked (the count(*) of `counted`):
    # the purge locks tally rows first too, so the two never wait on each other in a cycle.
    cell_rows = pair_tallies.cell_rows(new.questions, new.values) or [(0, 0)]  # (0, 0): no question, no watch
    params += [value for row in cell_rows for value in row] + [tallies.random_shard()]
    paired = pair_tallies.select_sql("(SELECT count(*) FROM counted) AS after_tallies CROSS JOIN response "
                                     "CROSS JOIN cell ca", "cell")
    # And its stored values by its cell of each watch of the margins' cells, after the tallies as well.
    params += [value for q, v in new.values.items() for value in (q, v)] + [tallies.random_shard()]
    celled = cell_tallies.select_sql("(SELECT count(*) FROM counted) AS after_tallies CROSS JOIN response "
                                     "CROSS JOIN answer a", "answer")
    sql = (
        f"WITH spent AS ({spent}), "
        f"response AS (INSERT INTO {table[Response]} ({RESPONSE_COLUMNS}) "
        f"SELECT {RESPONSE_MARKS} FROM spent RETURNING id), "
        f"reports AS (INSERT INTO {table[Report]} (id, response_id, question_id, value) "
        f"SELECT v.id, response.id, v.question_id, v.value FROM response CROSS JOIN (VALUES {reports}) "
        f"AS v (id, question_id, value)), "
        f"counted AS ({counted} RETURNING 1), "
        f"cell (q, c) AS (VALUES {', '.join(['(%s, %s)'] * len(cell_rows))}), "
        f"paired AS ({paired}), "
        f"answer (q, v) AS (VALUES {', '.join(['(%s, %s)'] * len(new.values))}), "
        f"celled AS ({celled}) "
        "SELECT count(*) FROM response"
    )
    # One statement is a transaction by itself: no BEGIN and COMMIT round trips. Inside a
    # caller's transaction, a savepoint keeps that transaction usable after a refusal.
    with transaction.atomic() if connection.in_atomic_block else nullcontext(), prepared.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.fetchone()[0] != 1:
            raise NotSpent

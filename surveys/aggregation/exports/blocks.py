"""A survey's stored reports, response by response in response-id order, read in blocks in the order
the indexes already give: what every report export (surveys.aggregation.exports.reports, stata_spss)
is written from.

A Block holds up to BLOCK responses: their ids (UUID text), days and mechanism versions, and per
question asked for (in the order asked) each response's stored value, None where the response has no
report of that question. A response with no report of any of the questions is left out, as the
reports' join to their responses always left it out.

Each question's reports are read from the covering index (question, response, value)
(`models.reports.REPORTS_BY_QUESTION`), which holds them in response order, so the reports are
neither sorted nor looked up one by one in the report table (reading them through the unique
(response, question) index visits the table for every report: SQLite's own shell took 41 s for the
10^7 reports of 10^6 responses that way, 3.5 s in storage order). Only the survey's responses, one
row per response, are put in id order by the engine (the response table has no index in id order
within a survey, and on SQLite random rowids).

- SQLite: the responses from one statement in id order, BLOCK rows at a time; per block one more
  statement walks each question's index range between the block's first and last id and joins the
  response ids and the values of each question into one text each (group_concat, in C). When a
  question's ids are exactly the block's, every response of the block has a report of it and its
  values are that text split (the usual case); otherwise its reports in that range are paired with
  the block's responses by id. The responses' statement stays open until the last block, so every
  block reads one snapshot (an implicit read transaction lasts while any statement of the
  connection is active; the caller's transaction, if any, is used as it is).
- PostgreSQL: one query joins each question's index scan to the responses, in id order, and COPY
  streams its rows: one statement, one snapshot, and the client holds one block at a time. The
  planner picks the joins: at 10^6 responses it hashes the index scans and sorts the joined rows
  by id (8.4 s of server CPU), which cost less than merge joins in index order (9.5 s), with the
  server's memory bounded by work_mem (hash batches and sort runs spill to disk).

Python holds one block at a time, whatever the number of responses.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db import connection

from surveys.collection.models import Report, Response, Survey
from surveys.collection.models.reports import REPORTS_BY_QUESTION
from surveys.collection.plan import PlannedQuestion

BLOCK = 1000  # responses per block: what memory holds at once, whatever the number of responses
LOOKUP_LIMIT = 4096  # renderings a Lookup keeps (a unary question may store up to 2^k distinct values)


@dataclass(frozen=True)
class Block:
    ids: Sequence[str]  # the response's UUID as text, e.g. "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
    days: Sequence[date]
    versions: Sequence[str]
    # per question: each response's stored value (an integer, or its decimal text), None if no report
    values: list[Sequence[int | str | None]]
    complete: bool  # no None in values: every response has a report of every question

    def __len__(self) -> int:
        return len(self.ids)


class Lookup(dict[Any, Any]):
    """A stored value's rendering in some format, made once per distinct value instead of once per report
    (None, a missing report, renders as `missing`). Keeps at most LOOKUP_LIMIT, so memory stays bounded
    whatever values come."""

    def __init__(self, render: Callable[[Any], Any], missing: Any):
        super().__init__({None: missing})
        self.render = render

    def __missing__(self, value: Any) -> Any:
        found = self.render(value)
        if len(self) < LOOKUP_LIMIT:
            self[value] = found
        return found


def blocks(survey: Survey, questions: Sequence[PlannedQuestion]) -> Iterator[Block]:
    """The survey's responses that have a report of one of `questions`, in blocks, in id order."""
    if not questions:
        return iter(())
    if connection.vendor == "postgresql":
        return _postgresql_blocks(survey, questions)
    return _sqlite_blocks(survey, questions)


def _tables() -> tuple[str, str]:
    quote = connection.ops.quote_name
    return quote(Response._meta.db_table), quote(Report._meta.db_table)


# --- SQLite: per block of responses, each question's reports in that id range --------------------------

def _sqlite_blocks(survey: Survey, questions: Sequence[PlannedQuestion]) -> Iterator[Block]:
    responses_table, reports_table = _tables()
    ids = [q.id for q in questions]
    index = f"{reports_table} INDEXED BY {REPORTS_BY_QUESTION}"
    # Per question, its reports whose response ids lie in the block's range, in response order, as two
    # lists in one text each: SQLite walks the index and joins them in C, Python splits the values.
    # When the ids are exactly the block's, every response of the block has a report of the question
    # (the usual case); otherwise that question's reports in the range are paired with them by id.
    grouped = (f"SELECT question_id, group_concat(response_id, ','), group_concat(value, ',') FROM ("
               f"SELECT question_id, response_id, value FROM {index} WHERE question_id IN "
               f"({', '.join(['%s'] * len(ids))}) AND response_id BETWEEN %s AND %s "
               "ORDER BY question_id, response_id) GROUP BY question_id")
    one = f"SELECT response_id, value FROM {index} WHERE question_id = %s AND response_id BETWEEN %s AND %s"
    days = Lookup(date.fromisoformat, None)
    with connection.cursor() as responses, connection.cursor() as reports:
        # The id twice: as stored (32 hex digits, what the reports' response_id holds and sorts by) and
        # as the UUID's text. The day as text: the column's own type would parse it once per row.
        # This statement stays open until the last block, so every block reads the same snapshot.
        responses.execute(
            "SELECT id, substr(id, 1, 8) || '-' || substr(id, 9, 4) || '-' || substr(id, 13, 4) || '-' || "
            "substr(id, 17, 4) || '-' || substr(id, 21), CAST(submitted_on AS TEXT), mechanism_version "
            f"FROM {responses_table} WHERE survey_id = %s ORDER BY id", [survey.pk])
        while rows := responses.fetchmany(BLOCK):
            stored, texts, day_texts, versions = zip(*rows, strict=True)
            first, last, expected = stored[0], stored[-1], ",".join(stored)
            reports.execute(grouped, [*ids, first, last])
            found = {question: (of, values) for question, of, values in reports.fetchall()}
            columns: list[Sequence[int | str | None]] = []
            complete = True
            for question in ids:
                of, values = found.get(question, ("", ""))
                if of == expected:
                    columns.append(values.split(","))
                else:
                    reports.execute(one, [question, first, last])
                    by_response = dict(reports.fetchall())
                    columns.append([by_response.get(response) for response in stored])
                    complete = False
            block = Block(texts, list(map(days.__getitem__, day_texts)), versions, columns, complete)
            yield block if complete else _answered(block)


def _answered(block: Block) -> Block:
    """The block without its responses that have no report of any of the questions."""
    keep = [i for i, row in enumerate(zip(*block.values, strict=True)) if any(v is not None for v in row)]
    if len(keep) == len(block):
        return block
    return Block([block.ids[i] for i in keep], [block.days[i] for i in keep], [block.versions[i] for i in keep],
                 [[column[i] for i in keep] for column in block.values], False)


# --- PostgreSQL: one join, streamed by COPY ----------------------------------------------------------

def _postgresql_blocks(survey: Survey, questions: Sequence[PlannedQuestion]) -> Iterator[Block]:
    responses_table, reports_table = _tables()
    # The ids are integers from the plan, written in the statement: COPY takes no parameters (psycopg would
    # merge them in itself, but Django's debug cursor's copy() passes none).
    joins = "".join(f" LEFT JOIN {reports_table} q{i} ON q{i}.response_id = r.id AND q{i}.question_id = {int(q.id)}"
                    for i, q in enumerate(questions))
    values = ", ".join(f"q{i}.value" for i in range(len(questions)))
    answered = " OR ".join(f"q{i}.value IS NOT NULL" for i in range(len(questions)))
    query = (f"COPY (SELECT r.id::text, r.submitted_on, r.mechanism_version, {values} FROM {responses_table} r"
             f"{joins} WHERE r.survey_id = {int(survey.pk)} AND ({answered}) ORDER BY r.id) TO STDOUT")
    with connection.cursor() as cursor, cursor.copy(query) as copy:
        copy.set_types(["text", "date", "text"] + ["int8"] * len(questions))
        rows = copy.rows()
        while chunk := list(itertools.islice(rows, BLOCK)):
            ids, days, versions, *columns = zip(*chunk, strict=True)
            yield Block(ids, days, versions, list(columns), not any(None in column for column in columns))

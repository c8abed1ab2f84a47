"""Each response's stored values kept in its own row (`Response.answers`), to read many questions at once.

A break-down by one question of a 20-question survey needs all 20 questions' values, aligned by response. From
the reports that is one index entry per report: 2 x 10^7 at 10^6 responses, 3.2 s on PostgreSQL with two
connections reading at once. The same values kept in each response's row as one text ("2,0,13": the order of
the questions of the plan it was made with, `Response.mechanism_version`) are 10^6 short texts, read in one
statement (`report_columns`). A row holds every question of its plan, so the columns line up in any row order.

The text is a copy of the reports, written with them in one transaction by every writer (`store`, `builder`),
like the tallies. Rows written otherwise hold NULL (the reports are then read); after an edit of the reports by
hand, `rebuild` (in `tallies.rebuild`, hence `manage.py rebuild_counts`) writes the text of every row that
differs from its reports, as for the tallies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from django.db import connection

from .models import Report, Response
from .plan import PlannedQuestion, SurveyPlan


def text(questions: Sequence[PlannedQuestion], values: Mapping[int, int]) -> str:
    """A response's answers: its stored values in the order of its plan's questions."""
    return joined([values[q.id] for q in questions])


def joined(row: Iterable[int]) -> str:
    """One response's stored values, already in its plan's order, as its answers."""
    return ",".join(map(str, row))


def rebuild(survey: int, current: SurveyPlan) -> int:
    """Every response's answers of the survey from its reports (NULL unless it was made with the current plan and
    has a report of each of its questions), writing only the rows that change; how many did."""
    return _from_reports("UPDATE {response} SET answers = {expected} WHERE answers IS DISTINCT FROM {expected} "
                         "AND survey_id = %s", survey, current, counting=False)


def stale(survey: int, current: SurveyPlan) -> int:
    """How many of the survey's responses keep other answers than their reports give (`rebuild` would change)."""
    return _from_reports("SELECT COUNT(*) FROM {response} WHERE answers IS DISTINCT FROM {expected} "
                         "AND survey_id = %s", survey, current, counting=True)


def _from_reports(statement: str, survey: int, current: SurveyPlan, counting: bool) -> int:
    """Run `statement`, with {response} the response table and {expected} each response's answers as its reports
    give them, for the survey's responses (its last parameter); the count it selects, or the rows it changed."""
    if not current.questions:
        return 0
    response, report = (connection.ops.quote_name(model._meta.db_table) for model in (Response, Report))
    # The plan's positions as a subquery, not a WITH: Python's sqlite3 counts no rows changed by a statement
    # that does not begin with UPDATE.
    p = "(" + " UNION ALL ".join(["SELECT %s AS question_id, %s AS position"] * len(current)) + ") AS p"
    if connection.vendor == "postgresql":
        ordered = (f"SELECT string_agg(r.value::text, ',' ORDER BY p.position) AS a, COUNT(*) AS n FROM {report} r "
                   f"JOIN {p} ON p.question_id = r.question_id WHERE r.response_id = {response}.id")
    else:  # SQLite's group_concat keeps its FROM subquery's order (report_columns relies on it too)
        ordered = (f"SELECT group_concat(v, ',') AS a, COUNT(*) AS n FROM (SELECT r.value AS v FROM {report} r "
                   f"JOIN {p} ON p.question_id = r.question_id WHERE r.response_id = {response}.id "
                   "ORDER BY p.position) AS o")
    expected = f"(CASE WHEN mechanism_version = %s THEN (SELECT CASE WHEN n = %s THEN a END FROM ({ordered}) AS f) END)"
    expected_params: list[int | str] = [current.version, len(current)]
    expected_params += [value for j, q in enumerate(current) for value in (q.id, j)]
    with connection.cursor() as cursor:
        cursor.execute(statement.format(response=response, expected=expected),
                       expected_params * statement.count("{expected}") + [survey])
        return int(cursor.fetchone()[0]) if counting else cursor.rowcount

"""Some questions' stored values as columns whose row i is the same response in every column, read without
the responses' keys: possible when every response of the survey has a report of each question (else None).

A column is one question's values in response order (`SELECT value ... WHERE question = q ORDER BY response`,
a scan of the index REPORTS_BY_QUESTION alone), sent as one comma-separated text that numpy parses: no Python
object per report. Columns line up when each holds exactly one report per response of the survey: a response
has at most one report per question (a unique constraint) and reports only of its own survey's questions (the
store writes a response's reports for its survey's plan), so a column as long as the survey's responses holds
one report of each, and sorted by response, the i-th is the i-th response's in every column. The lengths are
the proof, checked every time; the tallies (each question's n) are only a hint: when they disagree, some
question is missing for some responses, and no column is read in vain (the caller then reads the reports
by response: a model's rows pivot, a pair's count self-joins). Every
column and the count of responses come from one statement, hence from one snapshot of the database, whatever
is submitted meanwhile; or, when the caller holds submissions back, from two statements of two connections
that cannot see different reports (`complete`'s `beside`). The text is held whole: about 2 MB per question
at 10^6 responses.

When every response of the survey keeps its answers (`answer_rows`: its values in one text in its row) and a
quarter of the survey's questions or more are asked for, the columns come from those rows instead: one short
text per response, not one index entry per report, and lined up by construction, in any order of the rows.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from django.db import OperationalError, connection
from django.db.models import Field, Model, Sum

from . import plan
from .models import REPORTS_BY_QUESTION, TALLY_N_SLOT, Question, Report, Response, Tally

Column = npt.NDArray[np.int64]
COUNTED = 1 << 16  # codes counted by np.bincount up to 4 n + this many (cheaper than sorting n codes)
# Values read from the responses' rows at most: below PostgreSQL's limit of 1 GB for one text whatever their
# digits (20 characters each at most, comma included: 671 MB), e.g. 1.6 x 10^6 responses of 20 questions.
MOST_VALUES = 1 << 25
# Reading every question's answers costs about a fifth of reading one question's reports (measured on PostgreSQL),
# so a survey's answers are read only for at least a quarter of its questions.
WORTH = 4
LOCK_TIMEOUT_MS = 1000  # the second connection's wait for a lock: none is expected (see _beside)
MIDDLE_KEY = uuid.UUID(int=1 << 127)  # response keys are random: about half fall below it
Read = TypeVar("Read")


def complete(questions: list[int], beside: bool = False, halves: bool = False) -> list[Column] | None:
    """One column per question, in the order asked, if every response of their survey answers them all;
    None if some does not (or the questions are not of one survey, or one is asked twice).

    `beside`: the caller's transaction holds submissions back and has written nothing yet
    (`pair_tallies.watch_all`), so that a second connection sees the same reports. Half the columns (or of the
    responses' answers) are then read by one in another thread, at the same time: both engines step their
    indexes, and numpy parses, without Python's lock (20 columns at 10^6 responses on SQLite, 2.6 -> 1.3 s).
    Each connection counts the responses in the statement that reads its columns; different counts (a snapshot
    that differs after all) give None.

    `halves`: the caller needs each response whole but no single snapshot of them all (weights, which describe the
    responses they read) and holds no transaction (nothing uncommitted that a second connection would miss): the
    responses' answers, when read, are read in two halves by key on two connections at once, each half whole in
    itself (a response stored meanwhile is in one half or in neither)."""
    survey = _survey_of(questions)
    counted = _tallied_alike(questions)
    if survey is None or len(set(questions)) < len(questions) or counted is None:
        return None
    beside = beside and len(connection.atomic_blocks) == 1
    kept = _from_answers(survey, questions, counted, beside or (halves and not connection.in_atomic_block))
    if kept is not None:
        return kept
    if beside and len(questions) > 1:
        parts = questions[::2], questions[1::2]
        both = _at_once(_read, (survey, parts[0]), (survey, parts[1]))
        if both is None or both[0][0] != both[1][0]:
            return None
        (responses, mine), (_, found) = both
        by_id = dict(zip(parts[0], mine, strict=True)) | dict(zip(parts[1], found, strict=True))
        columns = [by_id[q] for q in questions]
    else:
        responses, columns = _read(survey, questions)
    return columns if all(len(column) == responses for column in columns) else None


MISSING = -(1 << 62)  # `aligned`'s value where a response has no report of the question (reports are far smaller)


class TooMany(ValueError):
    """More values than the caller may read by the slower join (`aligned`'s `most`)."""


def aligned(questions: list[int], most: int | None = None, beside: bool = False) -> list[Column]:
    """One column per question over every response of their survey, in one order: `complete`'s columns when every
    response answers them all, else each read by a join from the responses, in key order, MISSING where a response
    has no report of the question (a response of an older plan, a question added since). `most`: the join reads at
    most this many values (responses x questions), else TooMany before it starts. `beside`: `complete`'s."""
    found = complete(questions, beside=beside, halves=not beside)
    if found is not None:
        return found
    survey = _survey_of(questions)
    if survey is None or len(set(questions)) < len(questions):
        raise ValueError("the questions must be of one survey, each once")
    if most is not None and Response.objects.filter(survey=survey).count() * len(questions) > most:
        raise TooMany(f"more than {most} values to join")
    return _joined(survey, questions)


def _joined(survey: int, questions: list[int]) -> list[Column]:
    """`aligned`'s columns read by a join from the responses, one statement (one snapshot)."""
    (reports, by, question, value), (responses, key, of_survey) = (quoted(Report, "response", "question", "value"),
                                                                   quoted(Response, "id", "survey"))
    # PostgreSQL orders inside the aggregate (it promises no subquery's order); SQLite 3.40 has no ORDER BY
    # there, and keeps a FROM subquery's order for group_concat (as `_read`).
    text, joined = ((f"{value}::text", "string_agg(v, ',' ORDER BY k)") if connection.vendor == "postgresql"
                    else (value, "group_concat(v, ',')"))
    columns = ", ".join(
        f"(SELECT {joined} FROM (SELECT COALESCE({text}, '{MISSING}') AS v, s.{key} AS k FROM {responses} AS s "
        f"LEFT JOIN {reports} AS r ON r.{by} = s.{key} AND r.{question} = %s WHERE s.{of_survey} = %s "
        f"ORDER BY s.{key}) AS c{j})" for j in range(len(questions)))
    with connection.cursor() as cursor:  # only quoted names (and a number of ours) are interpolated
        cursor.execute(f"SELECT (SELECT COUNT(*) FROM {responses} WHERE {of_survey} = %s), {columns}",
                       [survey, *(p for q in questions for p in (q, survey))])
        count, *texts = cursor.fetchone()
    read = [_parsed(text or "", count) for text in texts]
    if any(len(column) != count for column in read):  # one statement, one snapshot: cannot differ
        raise RuntimeError("the responses' columns came out of different lengths")
    return read


def _from_answers(survey: int, questions: list[int], counted: int, beside: bool) -> list[Column] | None:
    """The columns from the responses' rows (`answer_rows`): None unless every response of the survey has its
    answers under the current plan, and reading them all is worth it (`WORTH`, `MOST_VALUES`; `counted`: the
    responses as the tallies count them, a hint). `beside`: as `complete`'s, each connection reads the responses
    of half the keys."""
    current = plan.of(survey)
    positions = {q.id: j for j, q in enumerate(current)}
    if (not all(q in positions for q in questions) or len(questions) * WORTH < len(current)
            or counted * len(current) > MOST_VALUES):
        return None
    if beside:
        middle = Response._meta.pk.get_db_prep_value(MIDDLE_KEY, connection)
        both = _at_once(_answers, (survey, current, ("<", middle)), (survey, current, (">=", middle)))
        tables = list(both) if both else [None]
    else:
        tables = [_answers(survey, current)]
    if any(table is None for table in tables):
        return None
    read = cast(list[Column], tables)
    # Each column made once, from both halves (joining the halves first would write every value once more: in
    # a fresh process, memory first touched costs more than the copy, 1.8 -> 1.0 s at 10^6 responses).
    return [np.concatenate([table[:, positions[q]] for table in read]) for q in questions]


def _answers(survey: int, current: plan.SurveyPlan, half: tuple[str, Any] | None = None) -> Column | None:
    """The answers of the survey's responses (of those whose key compares to `half`'s as said) as a table, one row
    per response, from one statement: None unless each has them under the current plan."""
    table, of_survey, version, answers, key = quoted(Response, "survey", "mechanism_version", "answers", "id")
    kept = f"CASE WHEN {version} = %s THEN {answers} END"
    joined = "string_agg" if connection.vendor == "postgresql" else "group_concat"
    where, params = (f" AND {key} {half[0]} %s", [half[1]]) if half else ("", [])
    with connection.cursor() as cursor:  # only quoted names (and a comparison of ours) are interpolated
        cursor.execute(f"SELECT COUNT(*), COUNT({kept}), {joined}({kept}, ',') FROM {table} "
                       f"WHERE {of_survey} = %s{where}", [current.version, current.version, survey, *params])
        responses, complete, text = cursor.fetchone()
    values = _parsed(text or "", responses * len(current)) if complete == responses else np.empty(0, np.int64)
    if complete != responses or len(values) != responses * len(current):
        return None
    return values.reshape(responses, len(current))


def _read(survey: int, questions: list[int]) -> tuple[int, list[Column]]:
    """The survey's count of responses and each question's values in response order, in one statement."""
    report, response = quoted(Report, "response", "question", "value"), quoted(Response, "survey")
    table, by, question, value = report
    if connection.vendor == "postgresql":
        joined, index = f"string_agg({value}::text, ',')", table
    else:
        # SQLite keeps a FROM subquery's ORDER BY when the outer query aggregates with other than count,
        # min or max (here group_concat); the tests plant a column read in another order.
        joined, index = f"group_concat({value}, ',')", f"{table} INDEXED BY {REPORTS_BY_QUESTION}"
    columns = ", ".join(f"(SELECT {joined} FROM (SELECT {value} FROM {index} WHERE {question} = %s "
                        f"ORDER BY {by}) AS c{j})" for j in range(len(questions)))
    with connection.cursor() as cursor:  # only quoted names are interpolated
        cursor.execute(f"SELECT (SELECT COUNT(*) FROM {response[0]} WHERE {response[1]} = %s), {columns}",
                       [survey, *questions])
        responses, *texts = cursor.fetchone()
    return responses, [_parsed(text or "", responses) for text in texts]


def _at_once(read: Callable[..., Read], mine: tuple[Any, ...], theirs: tuple[Any, ...]) -> tuple[Read, Read] | None:
    """`read(*mine)` here and `read(*theirs)` on a second connection (`_beside`) at the same time; None if the
    second gave up waiting for a lock."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        found = pool.submit(_beside, read, *theirs)
        here = read(*mine)
        try:
            return here, found.result()
        except OperationalError:  # its lock_timeout: see _beside
            return None


def _beside(read: Callable[..., Read], *args: Any) -> Read:
    """`read(*args)` on this thread's own connection, closed after. On PostgreSQL it waits for no lock: a
    request for an exclusive lock on the table read (CLUSTER, ALTER TABLE) queued behind the caller's would
    queue this read behind it, and the caller waits for this read, a circle PostgreSQL cannot see."""
    try:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
        return read(*args)
    finally:
        connection.close()


def _parsed(text: str, responses: int) -> Column:
    """A column's text as integers. One digit each (most questions: options, bins, a few bits) is read by
    position, ten times faster than parsing: a text of 2n - 1 characters with a comma at every odd position
    holds n integers of one character, digits."""
    if responses and len(text) == 2 * responses - 1:
        raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        if (raw[1::2] == ord(",")).all():
            return (raw[::2] - ord("0")).astype(np.int64)
    return np.fromstring(text, dtype=np.int64, sep=",")


def grouped(columns: list[Column]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct rows of aligned columns, in order, and how many times each comes: each row coded as one
    integer in mixed radix (column j's radix: its largest value + 1, the first column most significant), so
    that the codes sort as the rows do."""
    radices = [int(column.max()) + 1 if len(column) else 1 for column in columns]
    size, n = math.prod(radices), len(columns[0])
    if size - 1 > np.iinfo(np.int64).max:  # numbers of many values: the rows compared whole (slower)
        values, counts = np.unique(np.column_stack(columns), axis=0, return_counts=True)
        return values.astype(np.int64), counts.astype(np.int64)
    codes = np.zeros(n, dtype=np.int64)
    for column, radix in zip(columns, radices, strict=True):
        codes *= radix
        codes += column
    if size <= 4 * n + COUNTED:  # few possible codes: counted in place, no sort
        counted = np.bincount(codes, minlength=size)
        codes = np.flatnonzero(counted)
        counts = counted[codes]
    else:
        codes, counts = np.unique(codes, return_counts=True)
    values = np.empty((len(codes), len(columns)), dtype=np.int64)
    for j in reversed(range(len(columns))):
        codes, values[:, j] = np.divmod(codes, radices[j])
    return values, counts.astype(np.int64)


def distinct_rows(columns: Sequence[Column]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """`grouped` of columns that may hold negative values (a discrete Laplace report): each shifted to start at 0 for
    the grouping and back after."""
    lowest = [int(column.min()) if column.size else 0 for column in columns]
    rows, counts = grouped([column - low if low else column for column, low in zip(columns, lowest, strict=True)])
    return rows + np.asarray(lowest, dtype=np.int64), counts


def responses_if_any_complete(questions: list[int]) -> int | None:
    """The survey's responses if some question has a report from each (then each answers one of them);
    None if none does (or the questions are not of one survey). Counts only."""
    survey = _survey_of(questions)
    if survey is None:
        return None
    (table, question), (responses, of_survey) = quoted(Report, "question"), quoted(Response, "survey")
    counts = ", ".join(f"(SELECT COUNT(*) FROM {table} WHERE {question} = %s)" for _ in questions)
    with connection.cursor() as cursor:  # only quoted names are interpolated
        cursor.execute(f"SELECT (SELECT COUNT(*) FROM {responses} WHERE {of_survey} = %s), {counts}",
                       [survey, *questions])
        total, *answered = cursor.fetchone()
    return int(total) if total in answered else None


def _survey_of(questions: list[int]) -> int | None:
    surveys = set(Question.objects.filter(pk__in=questions).values_list("survey_id", flat=True))
    return surveys.pop() if len(surveys) == 1 else None


def tallied(questions: list[int]) -> dict[int, int]:
    """Each question's n as its tallies count it (one query over their shards): a hint, cheap at any size."""
    counted = (Tally.objects.filter(question_id__in=questions, slot=TALLY_N_SLOT).order_by().values("question_id")
               .annotate(n=Sum("count")).values_list("question_id", "n"))
    return {question: int(n or 0) for question, n in counted}


def _tallied_alike(questions: list[int]) -> int | None:
    """The n the tallies give every question, if the same (0 when no writer kept them: bulk loads); else None."""
    counted = tallied(questions)
    found = {counted.get(q, 0) for q in questions}
    return found.pop() if len(found) == 1 else None


def quoted(model: type[Model], *fields: str) -> list[str]:
    """The model's table and the fields' columns, quoted for SQL."""
    quote = connection.ops.quote_name
    return [quote(model._meta.db_table), *(quote(str(cast(Field, model._meta.get_field(name)).column))
                                           for name in fields)]

"""Running co-occurrence counts of pairs of questions that a researcher has related (PairTally).

At 10^6 responses counting a pair from the reports (`count_from_reports`) takes 0.3 s when every
response answers both questions (their columns, `report_columns`) and one to two seconds otherwise
(a self-join of the report table), and a break-down by one question of a 20-question survey needs
19 of them. Counting every pair at every submission would multiply a
submission's writes (190 pairs for 20 questions: measured, more than half again the CPU of
a submission). So only the pairs asked for are kept:

- The first time a pair is related, `watch` counts it from the reports and stores the counts
  and a PairWatch row in one transaction that no submission can interleave with (SQLite: the
  write lock of an immediate transaction; PostgreSQL: a SHARE ROW EXCLUSIVE lock on the
  report table, which waits for the submissions in flight and holds back new ones, whose
  statement then takes its snapshot after the lock and sees the watch).
- From then on every submission adds its cells of each watched pair of its survey in the
  transaction that stores its reports (`count_sql`, or part of the PostgreSQL statement:
  `select_sql`), one random shard per submission as the tallies.
- Readers (`read`) SUM over shards: cost proportional to cells x shards, not to responses.
- Whatever changes reports otherwise must rebuild them (`rebuild`, called by
  `tallies.rebuild`, hence `manage.py rebuild_counts`).

A question's cells for one stored value: an index-coded report is its option index (a direct number's:
its bin); a unary
one (a bitmask) is -1, the report itself, and each bit set. A pair's counts are then whole
(`joint_counts`): pairs[i, j] is the (i, j) cell, n the sum over the cells that stand for a
whole report on both sides, and each side's counts among those respondents the sums over the
other side's whole-report cells.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from secrets import randbelow

import numpy as np
from django.db import connection, transaction
from django.db.models import Sum

import ldp

from . import report_columns
from .models import REPORTS_BY_QUESTION, TALLY_SHARDS, PairTally, PairWatch, Report
from .plan import PlannedQuestion, Unavailable

WHOLE = -1  # a unary report's cell that stands for the report itself
Cells = dict[tuple[int, int], int]  # (cell of A, cell of B) -> responses


def cells(question: PlannedQuestion, value: int) -> tuple[int, ...]:
    """The cells a stored value counts in; ValueError if the value is not one this question stores."""
    mechanism = question.relating
    if mechanism.unary:
        if not 0 <= value < 1 << mechanism.k:
            raise ValueError(f"question {question.order}: value {value} outside its {mechanism.k} bits")
        return (WHOLE, *(j for j in range(mechanism.k) if value >> j & 1))
    cell = question.cell(value)
    if not 0 <= cell < mechanism.k:
        raise ValueError(f"question {question.order}: value {value} outside its {mechanism.k} options")
    return (cell,)


def random_shard() -> int:
    return randbelow(TALLY_SHARDS)  # load spreading only, as the tallies'


def _whole(question: PlannedQuestion) -> list[int]:
    """The cells of which every report has exactly one."""
    return [WHOLE] if question.relating.unary else list(range(question.relating.k))


def ordered(a: PlannedQuestion, b: PlannedQuestion) -> tuple[PlannedQuestion, PlannedQuestion, bool]:
    """The pair in stored order (lower id first), and whether that swapped them."""
    return (a, b, False) if a.id < b.id else (b, a, True)


def joint_counts(a: PlannedQuestion, b: PlannedQuestion, counted: Cells) -> ldp.JointCounts | None:
    """`ldp.JointCounts` of A (rows) and B from their cells' counts; None when nobody answered both."""
    ka, kb = a.relating.k, b.relating.k
    whole_a, whole_b = _whole(a), _whole(b)
    n = sum(counted.get((i, j), 0) for i in whole_a for j in whole_b)
    if n == 0:
        return None
    pairs = np.array([[counted.get((i, j), 0) for j in range(kb)] for i in range(ka)], dtype=np.int64)
    a_counts = [sum(counted.get((i, j), 0) for j in whole_b) for i in range(ka)]
    b_counts = [sum(counted.get((i, j), 0) for i in whole_a) for j in range(kb)]
    try:
        return ldp.JointCounts.from_counts(a.relating, b.relating, pairs, n, a_counts, b_counts)
    except ValueError as error:
        raise Unavailable(f"questions {a.order} and {b.order}: their counts cannot be read ({error})") from None


# --- counting from the reports -----------------------------------------------------------

def self_join_sql(a: int, b: int) -> tuple[str, list[int]]:
    """A self-join of the report table on the response, GROUP BY the two stored values. Report is
    unique per (response, question), so each response adds one pair."""
    table = connection.ops.quote_name(Report._meta.db_table)
    # Both sides from the (question, response, value) index alone. SQLite's planner, without
    # statistics, would look B's reports up through the (response, question) constraint instead
    # and read each row: three times slower at 10^6 responses (bench/crosstab_bench.py).
    index = f" INDEXED BY {REPORTS_BY_QUESTION}" if connection.vendor == "sqlite" else ""
    return (f"SELECT ra.value, rb.value, COUNT(*) FROM {table} ra{index} "
            f"INNER JOIN {table} rb{index} ON rb.response_id = ra.response_id AND rb.question_id = %s "
            f"WHERE ra.question_id = %s GROUP BY ra.value, rb.value", [b, a])


def _columns(pairs: Sequence[tuple[PlannedQuestion, PlannedQuestion]],
             beside: bool = False) -> dict[int, report_columns.Column] | None:
    """The pairs' questions' columns, each read once, by question id; None unless every response answers them all.
    `beside`: as `report_columns.complete`'s."""
    questions = {q.id: q for pair in pairs for q in pair}
    # Unary questions together: read beside, each connection then gets half of them (their bitmasks
    # take more digits, so more time, than an option's index).
    ids = sorted(questions, key=lambda q: (questions[q].relating.unary, q))
    columns = report_columns.complete(ids, beside) if ids else None
    return None if columns is None else dict(zip(ids, columns, strict=True))


def count_from_reports(a: PlannedQuestion, b: PlannedQuestion,
                       columns: dict[int, report_columns.Column] | None = None) -> Cells:
    """The pair's cells counted from the reports, linear in the responses: from the columns given (read once
    for several pairs), else from its own two questions' columns (`report_columns`) when every response
    answers both, else one grouped self-join."""
    if columns is None:
        columns = _columns([(a, b)])
    if columns is not None:
        values, times = report_columns.grouped([columns[a.id], columns[b.id]])
        rows = [(int(x), int(y), int(c)) for (x, y), c in zip(values, times, strict=True)]
    else:
        with connection.cursor() as cursor:
            cursor.execute(*self_join_sql(a.id, b.id))
            rows = cursor.fetchall()
    counted: Counter[tuple[int, int]] = Counter()
    try:
        for value_a, value_b, c in rows:
            for i in cells(a, value_a):
                for j in cells(b, value_b):
                    counted[(i, j)] += c
    except ValueError as error:
        raise Unavailable(f"questions {a.order} and {b.order}: stored reports cannot be read ({error})") from None
    return dict(counted)


# --- watching and reading --------------------------------------------------------------

def lock_out_submissions() -> None:
    """Inside a transaction: no report can be written until it ends (see the module's docstring)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {connection.ops.quote_name(Report._meta.db_table)} "
                           "IN SHARE ROW EXCLUSIVE MODE")
    # SQLite: the project's transactions are immediate (settings), so atomic() holds the write lock.


def read(a: PlannedQuestion, b: PlannedQuestion) -> Cells:
    """The watched pair's cells (A, B in stored order), summed over shards: one grouped query."""
    rows = (PairTally.objects.filter(question_a_id=a.id, question_b_id=b.id).order_by()
            .values("cell_a", "cell_b").annotate(c=Sum("count")).values_list("cell_a", "cell_b", "c"))
    return {(i, j): int(c) for i, j, c in rows if c}


def counts(a: PlannedQuestion, b: PlannedQuestion) -> ldp.JointCounts | None:
    """The pair's co-occurrence counts (A as rows), from its running counts; the first time, `watch`."""
    first, second, swapped = ordered(a, b)
    if _is_watched(first, second):
        counted = read(first, second)
    else:
        counted = watch(first, second)
    found = joint_counts(first, second, counted)
    return found.transposed() if swapped and found is not None else found


def watch(a: PlannedQuestion, b: PlannedQuestion) -> Cells:
    """Start keeping the pair's counts (A, B in stored order): count it from the reports and store
    the counts and the watch in one transaction that no submission interleaves with."""
    return watch_all([(a, b)])[0]


def watch_all(pairs: Sequence[tuple[PlannedQuestion, PlannedQuestion]],
              each: Callable[[PlannedQuestion, PlannedQuestion], None] = lambda a, b: None) -> list[Cells]:
    """`watch` each pair (in stored order), then call `each` with it in the same transaction. When every
    response answers all the questions of the pairs not yet watched, one transaction reads each question's
    column once for all (a break-down by one question of 20 reads 20 columns, not 38: at 10^6 responses
    about 0.15 s a column); otherwise one transaction a pair, so that no self-join holds submissions back
    for longer than its own pair."""
    if len(pairs) > 1:
        with transaction.atomic():
            lock_out_submissions()
            columns = _columns([(a, b) for a, b in pairs if not _is_watched(a, b)], beside=True)
            if columns is not None:
                return [_watch(a, b, columns, each) for a, b in pairs]
    found = []
    for a, b in pairs:
        with transaction.atomic():
            lock_out_submissions()
            found.append(_watch(a, b, None, each))
    return found


def _is_watched(a: PlannedQuestion, b: PlannedQuestion) -> bool:
    return PairWatch.objects.filter(question_a_id=a.id, question_b_id=b.id).exists()


def _watch(a: PlannedQuestion, b: PlannedQuestion, columns: dict[int, report_columns.Column] | None,
           each: Callable[[PlannedQuestion, PlannedQuestion], None]) -> Cells:
    """Inside a transaction that holds submissions back: the pair's counts, counted (`_count`) and stored with
    its watch, unless another request watched it meanwhile."""
    if _is_watched(a, b):
        counted = read(a, b)
    else:
        counted = count_from_reports(a, b, columns)
        _store(a, b, counted)
        PairWatch.objects.create(question_a_id=a.id, question_b_id=b.id)
    each(a, b)
    return counted


def _store(a: PlannedQuestion, b: PlannedQuestion, counted: Cells) -> None:
    PairTally.objects.bulk_create([PairTally(question_a_id=a.id, question_b_id=b.id, cell_a=i, cell_b=j,
                                             shard=0, count=c) for (i, j), c in sorted(counted.items())],
                                  batch_size=1000)


# --- counting at submission ------------------------------------------------------------

def cell_rows(questions: Iterable[PlannedQuestion], values: dict[int, int]) -> list[tuple[int, int]]:
    """(question id, cell) for every cell of one response's reports (values: question id -> stored value)."""
    return [(q.id, cell) for q in questions if q.relatable for cell in cells(q, values[q.id])]


def select_sql(rows: str, cell_table: str) -> str:
    """INSERT ... SELECT of one response's cells of every watched pair of its questions, + 1 each
    (`rows`: the FROM clause that yields `cell_table` (q, c) rows), in key order: concurrent
    PostgreSQL upserts lock rows in the same order, so never in a cycle."""
    table, count = connection.ops.quote_name(PairTally._meta.db_table), connection.ops.quote_name("count")
    watch = connection.ops.quote_name(PairWatch._meta.db_table)
    return (f"INSERT INTO {table} (question_a_id, question_b_id, cell_a, cell_b, shard, {count}) "
            f"SELECT w.question_a_id, w.question_b_id, ca.c, cb.c, %s, 1 FROM {rows} "
            f"INNER JOIN {watch} w ON w.question_a_id = ca.q INNER JOIN {cell_table} cb ON cb.q = w.question_b_id "
            "WHERE true ORDER BY 1, 2, 3, 4 "
            f"ON CONFLICT (question_a_id, question_b_id, cell_a, cell_b, shard) "
            f"DO UPDATE SET {count} = {table}.{count} + 1")


def count_sql(questions: Iterable[PlannedQuestion], values: dict[int, int], shard: int) -> tuple[str, list[int]]:
    """The statement that counts one response in every watched pair of its survey (none watched:
    one index seek per cell finds nothing). Run it inside the transaction that stores the reports."""
    found = cell_rows(questions, values)
    if not found:
        return "SELECT 1", []
    cell_values = ", ".join(["(%s, %s)"] * len(found))
    return (f"WITH cell (q, c) AS (VALUES {cell_values}) " + select_sql("cell ca", "cell"),
            [value for row in found for value in row] + [shard])


def add(questions: Iterable[PlannedQuestion], values: Mapping[int, Sequence[int] | np.ndarray]) -> None:
    """Count bulk-written responses (question id -> their stored values, response by response) in
    every watched pair of these questions, in one random shard. Call it in the transaction that
    writes their reports."""
    shard = random_shard()
    with transaction.atomic():
        for a, b in watched(q for q in questions if q.id in values):
            counted: Counter[tuple[int, int]] = Counter()
            for (value_a, value_b), c in Counter(zip(np.asarray(values[a.id]).tolist(),
                                                     np.asarray(values[b.id]).tolist(), strict=True)).items():
                for i in cells(a, value_a):
                    for j in cells(b, value_b):
                        counted[(i, j)] += c
            rows = {(row.cell_a, row.cell_b): row for row in PairTally.objects.select_for_update().filter(
                question_a_id=a.id, question_b_id=b.id, shard=shard).order_by("cell_a", "cell_b")}
            for cell, c in counted.items():
                rows.setdefault(cell, PairTally(question_a_id=a.id, question_b_id=b.id, cell_a=cell[0],
                                                cell_b=cell[1], shard=shard, count=0)).count += c
            PairTally.objects.bulk_create([row for row in rows.values() if row.pk is None], batch_size=1000)
            PairTally.objects.bulk_update([row for row in rows.values() if row.pk is not None], ["count"],
                                          batch_size=500)


# --- rebuilding and verifying ----------------------------------------------------------

def watched(questions: Iterable[PlannedQuestion]) -> list[tuple[PlannedQuestion, PlannedQuestion]]:
    """The watched pairs among these questions, in stored order."""
    by_id = {q.id: q for q in questions}
    rows = PairWatch.objects.filter(question_a_id__in=list(by_id)).order_by("question_a_id", "question_b_id")
    return [(by_id[a], by_id[b]) for a, b in rows.values_list("question_a_id", "question_b_id") if b in by_id]


def rebuild(questions: Iterable[PlannedQuestion]) -> None:
    """Rewrite the watched pairs' counts from the reports, in the caller's transaction (which must
    keep submissions out: `tallies.rebuild` locks the survey's tally rows first)."""
    pairs = watched(questions)
    columns = _columns(pairs)  # each question's column read once when every response answers them all, else None
    for a, b in pairs:
        counted = count_from_reports(a, b, columns)
        PairTally.objects.filter(question_a_id=a.id, question_b_id=b.id).delete()
        _store(a, b, counted)


def differences(questions: Iterable[PlannedQuestion]) -> list[tuple[PlannedQuestion, PlannedQuestion, Cells, Cells]]:
    """The watched pairs whose running counts disagree with a recount: (A, B, kept, recounted)."""
    pairs = watched(questions)
    columns = _columns(pairs)
    found = []
    for a, b in pairs:
        kept, recounted = read(a, b), count_from_reports(a, b, columns)
        if kept != recounted:
            found.append((a, b, kept, recounted))
    return found

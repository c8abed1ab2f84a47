"""Running counts of reports (the estimates' sufficient statistics), kept current by writers.

Every writer of reports updates the Tally rows in the same transaction:

- A submission (`store.store_response`) increments, in one random shard, the rows of the
  question slots it reports with one INSERT ... ON CONFLICT DO UPDATE SET count = count + 1,
  which also creates a row the first time, race-safely: `count_sql`, or on PostgreSQL part
  of the response's single statement.
- Bulk loads (the demo, benchmarks) call `add` with counts computed in numpy.
- Anything else (raw loads, deleted responses: Response.delete and CASCADE do *not*
  update tallies) must call `rebuild`, which recounts from the reports
  (`count_from_reports`) and rewrites the survey's tallies, and the counts of its watched pairs
  of questions (`pair_tallies`), in one transaction.
  `python manage.py rebuild_counts [slug ...] [--verify]` runs it, or only compares.

Readers (`read`) SUM over shards: cost proportional to options x shards, not to reports.
Every function takes the survey's planned questions (`plan.of(survey)`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, assert_never

import numpy as np
from django.db import connection, transaction
from django.db.models import Count, F, Sum

from ldp import Shape

from . import answer_rows, cell_tallies, pair_tallies, plan
from .models import TALLY_N_SLOT, TALLY_SHARDS, Report, Survey, Tally
from .plan import PlannedQuestion

GROUPED_UNARY_MAX_K = 16  # up to 2^16 distinct bitmasks per question: cheap to group by value
Counted = dict[int, tuple[np.ndarray, int]]  # question id -> (counts per option or bit, n reports)
Questions = Iterable[PlannedQuestion]


class CountError(plan.Unavailable):
    """Stored reports or tallies do not fit their question's options."""


def width(question: PlannedQuestion) -> int:
    """How many per-option counters a question has: k, or none for integer reports (discrete Laplace,
    whose k is the size of its grid; its estimate reads the histogram of stored values instead)."""
    match question.mechanism.shape:
        case Shape.LAPLACE | Shape.NUMBER:
            return 0
        case Shape.INDEX | Shape.DIRECT | Shape.BITS | Shape.TICKS | Shape.MEAN_BIT:
            return question.mechanism.k
        case _:
            assert_never(question.mechanism.shape)


# --- creating rows ---------------------------------------------------------------------

def ensure_rows(questions: Questions) -> None:
    """Create every missing (question, slot, shard) row, count 0.

    Race-safe: concurrent callers insert the same keys and conflicts are ignored.
    """
    rows = [Tally(question_id=q.id, slot=slot, shard=shard, count=0)
            for q in questions for slot in range(TALLY_N_SLOT, width(q)) for shard in range(TALLY_SHARDS)]
    Tally.objects.bulk_create(rows, ignore_conflicts=True, batch_size=2000)


# --- writing -------------------------------------------------------------------------

def random_shard() -> int:
    return secrets.randbelow(TALLY_SHARDS)  # load spreading only; never derived from the reports


def keys_of(questions: Questions, values: dict[int, int]) -> list[tuple[int, int]]:
    """The (question id, slot) rows one response increments (slot -1 counts n), sorted:
    concurrent PostgreSQL upserts then lock rows in the same order, so never in a cycle."""
    return sorted((q.id, slot) for q in questions
                  for slot in (TALLY_N_SLOT, *q.mechanism.slots(values[q.id])))


def upsert_sql(rows: str) -> str:
    """INSERT ... ON CONFLICT DO UPDATE count + 1 of `rows` (VALUES or a SELECT of question_id,
    slot, shard, 1): creates a row the first time, race-safely."""
    table, count = connection.ops.quote_name(Tally._meta.db_table), connection.ops.quote_name("count")
    return (f"INSERT INTO {table} (question_id, slot, shard, {count}) {rows} "
            f"ON CONFLICT (question_id, slot, shard) DO UPDATE SET {count} = {table}.{count} + 1")


def count_sql(questions: Questions, values: dict[int, int]) -> tuple[str, list[int]]:
    """The statement that counts one response (`values`: question id -> stored value), in one
    random shard. Run it inside the transaction that stores the reports."""
    keys, shard = keys_of(questions, values), random_shard()
    rows = "VALUES " + ", ".join(["(%s, %s, %s, 1)"] * len(keys))
    return upsert_sql(rows), [value for pk, slot in keys for value in (pk, slot, shard)]


def add(questions: Questions, counted: Counted) -> None:
    """Add bulk counts (question id -> (counts per slot, n)) to one random shard."""
    questions, shard = list(questions), random_shard()
    with transaction.atomic():
        ensure_rows(questions)
        rows = {(t.question_id, t.slot): t for t in Tally.objects.select_for_update().filter(
            question_id__in=[q.id for q in questions], shard=shard).order_by("pk")}
        changed = []
        for q in questions:
            counts, n = counted[q.id]
            for slot, c in [(TALLY_N_SLOT, n), *enumerate(counts)]:
                if c:
                    row = rows[(q.id, int(slot))]
                    row.count += int(c)
                    changed.append(row)
        Tally.objects.bulk_update(changed, ["count"], batch_size=500)


# --- reading -------------------------------------------------------------------------

def _sums(question_ids: list[int]) -> dict[tuple[int, int], int]:
    """(question id, slot) -> count summed over shards: one grouped query."""
    rows = (Tally.objects.filter(question_id__in=question_ids).order_by().values("question_id", "slot")
            .annotate(c=Sum("count")).values_list("question_id", "slot", "c"))
    return {(question_id, slot): int(c or 0) for question_id, slot, c in rows}


def read(questions: Questions) -> Counted:
    """question id -> (counts per option, n) from the tallies: one grouped query."""
    ks = {q.id: width(q) for q in questions}
    if not ks:
        return {}
    counts = {pk: np.zeros(k, dtype=np.int64) for pk, k in ks.items()}
    totals = dict.fromkeys(ks, 0)
    for (question_id, slot), c in _sums(list(ks)).items():
        if slot == TALLY_N_SLOT:
            totals[question_id] = c
        elif 0 <= slot < ks[question_id]:
            counts[question_id][slot] = c
        elif c:
            raise CountError(f"question id {question_id} has counts outside its options")
    return {pk: (counts[pk], totals[pk]) for pk in ks}


def count_from_reports(questions: Questions) -> Counted:
    """question id -> (counts per option, n reports), counted from the Report table.

    Linear in the number of reports: for verification and rebuilding, not for dashboards.
    A GROUP BY value per question serves index reports and unary reports with few options
    (each distinct value's count is split into its slots by the mechanism, vectorized); unary
    questions with many options, whose bitmasks could be nearly all distinct, sum their bits in SQL.
    """
    by_id = {q.id: q for q in questions}
    counts = {pk: np.zeros(width(q), dtype=np.int64) for pk, q in by_id.items()}
    totals = dict.fromkeys(counts, 0)
    many_bits = {pk: q.mechanism.k for pk, q in by_id.items()
                 if q.mechanism.unary and q.mechanism.k > GROUPED_UNARY_MAX_K}
    grouped = [pk for pk in by_id if pk not in many_bits]
    for question_id in grouped:
        # One question at a time, each one range of the (question, response, value) index: on
        # SQLite, grouping every question at once sorted all the reports together, 2x slower.
        found = list(Report.objects.filter(question_id=question_id).order_by()
                     .values("value").annotate(c=Count("*")).values_list("value", "c"))
        if found:
            values, tallies = np.array(found, dtype=np.int64).T
            totals[question_id] = int(tallies.sum())
            try:
                tallied = by_id[question_id].mechanism.tally(values, tallies)
                counts[question_id][:] = tallied[:width(by_id[question_id])]
            except ValueError:
                raise CountError(f"question id {question_id} has reports outside its options") from None
    if many_bits:
        # Bits at or above a question's k are always 0 (the submission checks the list length).
        sums = {f"bit{j}": Sum(F("value").bitrightshift(j).bitand(1)) for j in range(max(many_bits.values()))}
        bit_sums: Iterable[Any] = (Report.objects.filter(question_id__in=list(many_bits)).order_by()
                                   .values("question_id").annotate(n=Count("*"), **sums))
        for row in bit_sums:
            k = many_bits[row["question_id"]]
            counts[row["question_id"]][:] = [int(row[f"bit{j}"] or 0) for j in range(k)]
            totals[row["question_id"]] = row["n"]
    return {pk: (counts[pk], totals[pk]) for pk in counts}


# --- rebuilding and verifying ----------------------------------------------------------

@dataclass(frozen=True)
class Difference:
    survey: str  # slug
    question: int  # order
    slot: int  # -1: n
    tallied: int
    recounted: int

    def __str__(self) -> str:
        what = "n" if self.slot == TALLY_N_SLOT else f"slot {self.slot}"
        return f"{self.survey} question {self.question} {what}: tallies {self.tallied}, reports {self.recounted}"


@dataclass(frozen=True)
class PairDifference:
    survey: str  # slug
    questions: tuple[int, int]  # orders
    cells: list[tuple[tuple[int, int], int, int]]  # (cell of A, cell of B), kept, recounted

    def __str__(self) -> str:
        a, b = self.questions
        shown = "; ".join(f"cells {cell}: kept {kept}, reports {recounted}" for cell, kept, recounted in self.cells)
        return f"{self.survey} questions {a} x {b}: {shown}"


@dataclass(frozen=True)
class CellDifference:
    survey: str  # slug
    keys: tuple[int, ...]  # orders
    question: int  # order

    def __str__(self) -> str:
        return (f"{self.survey} question {self.question} by the cells of questions "
                f"{', '.join(map(str, self.keys))}: kept counts differ from the reports")


def differences(survey: Survey) -> list[Difference | PairDifference | CellDifference]:
    """Where the tallies or the watched pairs' counts disagree with a recount from the reports
    (empty when they agree)."""
    questions = plan.of(survey).questions
    with transaction.atomic():  # one snapshot on SQLite; a check, not a lock, elsewhere
        recounted, tallied = count_from_reports(questions), _sums([q.id for q in questions])
        pairs = pair_tallies.differences(questions)
        cells = cell_tallies.differences(survey.pk, questions)
    found: list[Difference | PairDifference | CellDifference] = [
        CellDifference(survey.slug, tuple(k.order for k in watch.keys), q.order) for watch, q in cells]
    for q in questions:
        counts, n = recounted[q.id]
        expected = {TALLY_N_SLOT: n, **{j: int(c) for j, c in enumerate(counts)}}
        slots = sorted(set(expected) | {slot for (pk, slot), c in tallied.items() if pk == q.id and c})
        found += [Difference(survey.slug, q.order, slot, tallied.get((q.id, slot), 0), expected.get(slot, 0))
                  for slot in slots if tallied.get((q.id, slot), 0) != expected.get(slot, 0)]
    for a, b, kept, counted in pairs:
        found.append(PairDifference(survey.slug, (a.order, b.order), [
            (cell, kept.get(cell, 0), counted.get(cell, 0)) for cell in sorted(set(kept) | set(counted))
            if kept.get(cell, 0) != counted.get(cell, 0)]))
    return found


def rebuild(survey: Survey) -> None:
    """Rewrite the survey's tallies, and the responses' answers (`answer_rows`), from its reports, in one
    transaction.

    The survey's tally rows are locked first (in id order), so a submission that has not
    incremented them yet waits and counts itself on top of the rebuilt values.
    """
    current = plan.of(survey)
    questions = current.questions
    with transaction.atomic():
        ensure_rows(questions)
        rows = list(Tally.objects.select_for_update().filter(question__survey=survey).order_by("pk"))
        answer_rows.rebuild(survey.pk, current)  # before the pairs: they are counted from the answers
        counted = count_from_reports(questions)
        ks = {q.id: width(q) for q in questions}
        stale, changed = [], []
        for row in rows:
            if row.question_id not in ks or not TALLY_N_SLOT <= row.slot < ks[row.question_id]:
                stale.append(row.pk)
                continue
            counts, n = counted[row.question_id]
            value = 0 if row.shard else int(n if row.slot == TALLY_N_SLOT else counts[row.slot])
            if row.count != value:
                row.count = value
                changed.append(row)
        Tally.objects.filter(pk__in=stale).delete()
        Tally.objects.bulk_update(changed, ["count"], batch_size=500)
        pair_tallies.rebuild(questions)  # the survey's tally rows, locked above, hold submissions back
        cell_tallies.rebuild(survey.pk, questions)

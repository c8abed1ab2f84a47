"""Running counts of every question's stored values by the cell of a few key questions (CellTally), for the weighted
figures: a response's weight depends only on its cell of the margin questions, so a weighted figure of a question is
a sum over its (cell, stored value) counts, and of a break-down by B over its (cell x B, stored value) counts.

Read from the reports, those counts cost reading every question's answers of every response (0.8 s at 10^6
responses of 22 questions, surveys.aggregation.weighting.weights); kept running, they cost a grouped read of
cells x values x shards rows, whatever the responses. As the pairs' (`pair_tallies`):

- The first time a set of keys is asked for, `watch` counts every question of the survey from the reports and
  stores the counts, the CellWatch and its CellKey rows in one transaction that no submission interleaves with
  (`pair_tallies.lock_out_submissions`).
- From then on every submission adds itself in the transaction that stores its reports (`count_sql`, or part of
  PostgreSQL's one statement: `select_sql`): its cell is computed in SQL from its own answers and the keys'
  multipliers, so a survey without a watch costs one index seek per answer; a response without an answer to
  every key is not counted (it cannot be weighted).
- Readers (`read`) SUM over shards. Whatever changes reports otherwise must rebuild them (`rebuild`, called by
  `tallies.rebuild`); the purge empties them; new margins drop the survey's watches (`drop`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from secrets import randbelow
from typing import assert_never

import numpy as np
import numpy.typing as npt
from django.db import connection, transaction

from ldp import Shape

from . import pair_tallies, report_columns
from .models import TALLY_SHARDS, CellKey, CellTally, CellWatch
from .plan import PlannedQuestion

Rows = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]  # cell codes, values, counts


def radix(question: PlannedQuestion) -> int | None:
    """How many stored values a key question can have (its cells along its axis): an index-coded answer of k options,
    k; a unary one, its 2^k bit patterns; None for a number, which keys no cell."""
    mechanism = question.mechanism
    match mechanism.shape:
        case Shape.BITS | Shape.TICKS:
            return 1 << mechanism.k
        case Shape.INDEX | Shape.DIRECT:
            return mechanism.k
        case Shape.MEAN_BIT | Shape.LAPLACE | Shape.NUMBER:
            return None
        case _:
            assert_never(mechanism.shape)


def can_key(keys: Sequence[PlannedQuestion]) -> bool:
    """Whether these questions can key a watch: each has cells, and their codes fit a signed 64-bit integer."""
    radices = [radix(q) for q in keys]
    return bool(keys) and None not in radices and math.prod(r for r in radices if r) < 1 << 62


def multipliers(keys: Sequence[PlannedQuestion]) -> list[int]:
    """Each key's stored value's weight in a cell's code: mixed radix, the first key most significant."""
    found, weight = [], 1
    for question in reversed(keys):
        found.append(weight)
        weight *= radix(question) or 1
    return found[::-1]


def decoded(keys: Sequence[PlannedQuestion], codes: npt.NDArray[np.int64]) -> list[npt.NDArray[np.int64]]:
    """Each key's stored value in the cells of these codes."""
    return [codes // weight % (radix(q) or 1) for q, weight in zip(keys, multipliers(keys), strict=True)]


def _keys_text(keys: Sequence[PlannedQuestion]) -> str:
    return ",".join(str(q.id) for q in keys)


def find(survey: int, keys: Sequence[PlannedQuestion]) -> int | None:
    """The id of the survey's watch of exactly these keys, in this order; None if none."""
    return CellWatch.objects.filter(survey_id=survey, keys=_keys_text(keys)).values_list("pk", flat=True).first()


def watch(survey: int, keys: Sequence[PlannedQuestion], questions: Sequence[PlannedQuestion],
          most: int | None = None) -> int:
    """Start counting every one of `questions` (the survey's plan) by the cells of `keys`: counted from the reports
    and stored with the watch in one transaction that holds submissions back; the watch's id. `most`:
    `report_columns.aligned`'s (TooMany before anything is read)."""
    with transaction.atomic():
        pair_tallies.lock_out_submissions()
        found = find(survey, keys)
        if found is not None:  # another request watched them meanwhile
            return found
        counted = _from_reports(keys, questions, most, beside=True)
        stored = CellWatch.objects.create(survey_id=survey, keys=_keys_text(keys))
        CellKey.objects.bulk_create(CellKey(watch=stored, question_id=q.id, multiplier=weight, keys=len(keys))
                                    for q, weight in zip(keys, multipliers(keys), strict=True))
        _store(stored.pk, counted)
        return stored.pk


def _from_reports(keys: Sequence[PlannedQuestion], questions: Sequence[PlannedQuestion], most: int | None = None,
                  beside: bool = False) -> dict[int, Rows]:
    """Each question's (and key's) rows counted from the reports (`report_columns.aligned`, its `most` and
    `beside`)."""
    ids = list(dict.fromkeys([q.id for q in keys] + [q.id for q in questions]))
    columns = dict(zip(ids, report_columns.aligned(ids, most=most, beside=beside), strict=True))
    keyed = np.logical_and.reduce([columns[q.id] != report_columns.MISSING for q in keys])
    codes = sum(columns[q.id][keyed] * weight for q, weight in zip(keys, multipliers(keys), strict=True))
    return {q: _counted(np.asarray(codes, dtype=np.int64), columns[q][keyed]) for q in ids}


def _counted(codes: npt.NDArray[np.int64], values: npt.NDArray[np.int64]) -> Rows:
    """The distinct (cell, value) rows of responses with a value (not MISSING), and how many responses each holds."""
    answered = values != report_columns.MISSING
    rows, counts = report_columns.distinct_rows([codes[answered], values[answered]])
    return rows[:, 0], rows[:, 1], counts


def _store(watch_id: int, counted: Mapping[int, Rows]) -> None:
    CellTally.objects.bulk_create(
        [CellTally(watch_id=watch_id, question_id=q, cell=int(cell), value=int(value), shard=0, count=int(c))
         for q, rows in counted.items() for cell, value, c in zip(*rows, strict=True)], batch_size=1000)


def read(watch_id: int, questions: Iterable[int]) -> dict[int, Rows]:
    """Each question's (cell code, stored value) rows of the watch with their counts, summed over shards, in order:
    one grouped query. A question nobody answered has no rows."""
    table = connection.ops.quote_name(CellTally._meta.db_table)
    ids = list(questions)
    found: dict[int, list[tuple[int, int, int]]] = {q: [] for q in ids}
    with connection.cursor() as cursor:  # only a quoted name is interpolated
        cursor.execute(f"SELECT question_id, cell, value, SUM({connection.ops.quote_name('count')}) FROM {table} "
                       f"WHERE watch_id = %s AND question_id IN ({', '.join(['%s'] * len(ids))}) "
                       "GROUP BY question_id, cell, value ORDER BY question_id, cell, value", [watch_id, *ids])
        for question, cell, value, count in cursor.fetchall():
            if count:
                found[question].append((cell, value, count))
    return {q: tuple(np.array([row[j] for row in rows], dtype=np.int64) for j in range(3))  # type: ignore[misc]
            for q, rows in found.items()}


def drop(survey: int, keeping: Sequence[PlannedQuestion] = ()) -> None:
    """Stop counting the survey's cells (its margins changed): its watches and their counts go, but those whose keys
    begin with `keeping`'s."""
    prefix = _keys_text(keeping)
    for pk, keys in CellWatch.objects.filter(survey_id=survey).values_list("pk", "keys"):
        if not prefix or not (keys == prefix or keys.startswith(prefix + ",")):
            CellWatch.objects.filter(pk=pk).delete()


# --- counting at submission ------------------------------------------------------------

def random_shard() -> int:
    return randbelow(TALLY_SHARDS)  # load spreading only, as the tallies'


def select_sql(rows: str, answers: str) -> str:
    """INSERT ... SELECT of one response's stored values under its cell of every watch of its questions, + 1 each
    (`rows`: the FROM clause that yields the `answers` (q, v) rows), in key order, so that concurrent PostgreSQL
    upserts never lock rows in a cycle. A watch counts the response only if it answers every key (`keys`)."""
    table, keys = connection.ops.quote_name(CellTally._meta.db_table), connection.ops.quote_name(CellKey._meta.db_table)
    count = connection.ops.quote_name("count")
    celled = (f"(SELECT k.watch_id AS w, CAST(SUM(ka.v * k.multiplier) AS BIGINT) AS cell FROM {keys} k "
              f"INNER JOIN {answers} ka ON ka.q = k.question_id GROUP BY k.watch_id HAVING COUNT(*) = MAX(k.keys))")
    return (f"INSERT INTO {table} (watch_id, question_id, cell, value, shard, {count}) "
            f"SELECT c.w, a.q, c.cell, a.v, %s, 1 FROM {rows} CROSS JOIN {celled} c "
            "WHERE true ORDER BY 1, 2, 3, 4 "
            f"ON CONFLICT (watch_id, question_id, cell, value, shard) DO UPDATE SET {count} = {table}.{count} + 1")


def count_sql(values: Mapping[int, int], shard: int) -> tuple[str, list[int]]:
    """The statement that counts one response (question id -> stored value) in every watch of its survey. Run it
    inside the transaction that stores the reports."""
    answers = ", ".join(["(%s, %s)"] * len(values))
    return (f"WITH answer (q, v) AS (VALUES {answers}) " + select_sql("answer a", "answer"),
            [x for q, v in values.items() for x in (q, v)] + [shard])


def add(questions: Sequence[PlannedQuestion], values: Mapping[int, Sequence[int] | npt.NDArray[np.int64]]) -> None:
    """Count bulk-written responses (question id -> their stored values, response by response) in every watch of
    these questions, in one random shard. Call it in the transaction that writes their reports."""
    shard, ids = random_shard(), [q.id for q in questions if q.id in values]
    keyed = CellKey.objects.filter(question_id__in=ids).order_by("watch_id")
    by_watch: dict[int, list[tuple[int, int, int]]] = {}
    for watch_id, question, weight, keys in keyed.values_list("watch_id", "question_id", "multiplier", "keys"):
        by_watch.setdefault(watch_id, []).append((question, weight, keys))
    for watch_id, found in sorted(by_watch.items()):
        if len(found) < found[0][2]:
            continue  # some key is not among these responses' answers: none of them can be counted
        codes = np.zeros(len(values[found[0][0]]), dtype=np.int64)
        for q, weight, _ in found:
            codes += np.asarray(values[q], dtype=np.int64) * weight
        with transaction.atomic():
            rows = {(row.question_id, row.cell, row.value): row for row in CellTally.objects.select_for_update()
                    .filter(watch_id=watch_id, shard=shard).order_by("question_id", "cell", "value")}
            for q in ids:
                for cell, value, c in zip(*_counted(codes, np.asarray(values[q], dtype=np.int64)), strict=True):
                    key = (q, int(cell), int(value))
                    rows.setdefault(key, CellTally(watch_id=watch_id, question_id=q, cell=key[1], value=key[2],
                                                   shard=shard, count=0)).count += int(c)
            CellTally.objects.bulk_create([row for row in rows.values() if row.pk is None], batch_size=1000)
            CellTally.objects.bulk_update([row for row in rows.values() if row.pk is not None], ["count"],
                                          batch_size=500)


# --- rebuilding --------------------------------------------------------------------------

@dataclass(frozen=True)
class Watched:
    id: int
    keys: tuple[PlannedQuestion, ...]


def watched(survey: int, questions: Sequence[PlannedQuestion]) -> list[Watched]:
    """The survey's watches whose keys are all among `questions` (the others are dropped by `rebuild`)."""
    by_id = {q.id: q for q in questions}
    found = []
    for pk, keys in CellWatch.objects.filter(survey_id=survey).order_by("pk").values_list("pk", "keys"):
        ids = [int(x) for x in keys.split(",")]
        found.append(Watched(pk, tuple(by_id[x] for x in ids)) if all(x in by_id for x in ids) else Watched(pk, ()))
    return found


def rebuild(survey: int, questions: Sequence[PlannedQuestion]) -> None:
    """Rewrite the survey's watches' counts from the reports, in the caller's transaction (which must keep
    submissions out: `tallies.rebuild` locks the survey's tally rows first); a watch of questions no longer asked
    goes."""
    for found in watched(survey, questions):
        CellTally.objects.filter(watch_id=found.id).delete()
        if not found.keys:
            CellWatch.objects.filter(pk=found.id).delete()
            continue
        _store(found.id, _from_reports(found.keys, questions))


def differences(survey: int, questions: Sequence[PlannedQuestion]) -> list[tuple[Watched, PlannedQuestion]]:
    """The (watch, question) whose running counts disagree with a recount from the reports."""
    found = []
    for each in watched(survey, questions):
        if each.keys:
            kept, recounted = read(each.id, [q.id for q in questions]), _from_reports(each.keys, questions)
            found += [(each, q) for q in questions
                      if any(not np.array_equal(a, b) for a, b in zip(kept[q.id], recounted[q.id], strict=True))]
    return found

"""Benchmark: what singles a respondent out (surveys.aggregation.privacy.uniqueness) at 10^6 responses.

    python bench/uniqueness_bench.py                         # 10^3 and 10^6 responses, SQLite
    DATABASE_URL=postgres://... python bench/uniqueness_bench.py --sizes 1000000

A survey of one randomized question and three direct ones (an age in years 18..99, sex, region of 10), on a
scratch database (bench/scratch.py, removed afterwards); per size, the time of `uniqueness.measured` (the
combination, each question alone, the age in three band widths, all from one grouped read) and of one count grouped
in SQL (its path past MOST_GROUPS combinations).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from scratch import Scratch, scratch_for  # noqa: E402

from surveys.aggregation.privacy import uniqueness  # noqa: E402
from surveys.collection import answer_rows, builder, plan  # noqa: E402
from surveys.collection.builder import QuestionSpec  # noqa: E402
from surveys.collection.models import Survey  # noqa: E402
from surveys.collection.models.keys import KEY_BITS  # noqa: E402

BATCH = 25_000
RESPONSE_COLUMNS = ("id", "survey_id", "mechanism_version", "submitted_on", "submission_key", "answers")
REPORT_COLUMNS = ("id", "response_id", "question_id", "value")


def bench_survey() -> Survey:
    """One randomized question and three direct ones: an age in years 18..99, sex, a region of 10."""
    return builder.create_survey("bench", "Bench", [
        QuestionSpec("Smoked?", "qrr", q="0.5"),
        QuestionSpec("Age?", "direct_number", kind="numeric", scale=("18", "99", "1")),
        QuestionSpec("Sex?", "direct", options=["Female", "Male"]),
        QuestionSpec("Region?", "direct", options=[f"Region {j}" for j in range(10)]),
    ], status=Survey.Status.OPEN, retention_days=30)


def fill(scratch: Scratch, survey: Survey, count: int, rng: np.random.Generator) -> None:
    current = plan.of(survey)
    with scratch.loading() as cursor:
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            raw = rng.bytes(32 * size).hex()
            ids = sorted(raw[64 * i:64 * i + 32] for i in range(size))
            keys = [raw[64 * i + 32:64 * i + 64] for i in range(size)]
            drawn = [rng.integers(0, 2, size), np.clip(rng.normal(25, 15, size).astype(int), 0, 81),
                     rng.integers(0, 2, size), rng.integers(0, 10, size)]
            columns = [column.tolist() for column in drawn]
            answers = [answer_rows.joined(row) for row in zip(*columns, strict=True)]
            scratch.write(cursor, "collection_response", RESPONSE_COLUMNS,
                          [(rid, survey.pk, current.version, "2026-01-01", key, text)
                           for rid, key, text in zip(ids, keys, answers, strict=True)])
            report_keys = iter((rng.integers(0, 1 << KEY_BITS, size * len(current)) | 1 << KEY_BITS).tolist())
            scratch.write(cursor, "collection_report", REPORT_COLUMNS,
                          ((next(report_keys), rid, q.id, values[i]) for i, rid in enumerate(ids)
                           for q, values in zip(current, columns, strict=True)))


def timed(call: Callable[[], object], repeat: int = 3) -> float:
    found = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        found.append(time.perf_counter() - start)
    return statistics.median(found)


def filled(default_sizes: str) -> Iterator[tuple[Survey, int]]:
    """The bench survey on a scratch database (removed afterwards), filled up to each of --sizes in turn."""
    sizes = [int(size) for size in (sys.argv[sys.argv.index("--sizes") + 1] if "--sizes" in sys.argv
                                    else default_sizes).split(",")]
    scratch = scratch_for(connection.vendor)(None)
    try:
        scratch.create()
        call_command("migrate", verbosity=0, interactive=False)
        survey = bench_survey()
        rng, have = np.random.default_rng(0), 0
        for size in sizes:
            fill(scratch, survey, size - have, rng)
            have = size
            yield survey, size
    finally:
        scratch.remove(False)


def main() -> None:
    for survey, size in filled("1000,1000000"):
        start = time.perf_counter()
        found = uniqueness.measured(survey)
        whole = time.perf_counter() - start
        assert found.combination is not None and found.combination.respondents == size
        combination = timed(partial(uniqueness.count, survey, plan.of(survey).direct, listed=uniqueness.LISTED), 1)
        print(f"{connection.vendor} n={size:,}: uniqueness.measured {whole:.2f} s, the combination alone "
              f"{combination:.2f} s; unique {found.combination.unique:,}, below k {found.combination.below_k:,}",
              flush=True)


if __name__ == "__main__":
    main()

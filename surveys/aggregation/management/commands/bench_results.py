"""Benchmark: how the estimates endpoint's time grows with the number of responses.

    python manage.py bench_results                       # 10^3 and 10^6 responses
    python manage.py bench_results --sizes 1000,100000 --repeat 7

It never touches the configured database: before any query it points the default
connection at a fresh SQLite file in a new temporary directory (or at --db PATH, which
must not exist yet), migrates it, and deletes it afterwards unless --keep is given. So it
needs the SQLite engine (the default; unset DATABASE_URL if it points elsewhere).

It fills one 10-question survey (4 yes/no, 3 k-RR, 3 unary) with randomized responses,
growing it from one size to the next with raw executemany in large batches (secondary
indexes dropped while loading, rebuilt before timing), then rebuilds the survey's tallies
from the reports (the raw load bypasses the submission service that keeps them current)
and prints, per size, the median time of the results service (which reads the tallies),
of GET /api/v1/surveys/<slug>/estimates/ through the Django test client and, for
comparison, of the old count by a scan of the reports, and the ratio between the largest
and the smallest size.
"""

from __future__ import annotations

import math
import shutil
import statistics
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.test import Client
from django.test.utils import override_settings
from django.urls import reverse

from surveys.aggregation import results
from surveys.collection import tallies
from surveys.collection.models import Option, Question, Survey

BATCH = 25_000  # responses per executemany batch (x 10 reports)
QUESTIONS = [  # (kind, mechanism, parameter, k)
    ("yes_no", "qrr", Decimal("0.5"), 2),
    ("yes_no", "bitflip", 0.5, 2),
    ("yes_no", "qrr", Decimal("0.25"), 2),
    ("yes_no", "bitflip", 1.0, 2),
    ("single_choice", "krr", 1.0, 4),
    ("single_choice", "krr", 1.0, 6),
    ("single_choice", "krr", 0.5, 3),
    ("single_choice", "oue", 1.0, 5),
    ("single_choice", "sue", 1.0, 4),
    ("single_choice", "oue", 0.5, 8),
]


class Command(BaseCommand):
    help = "Time the estimates endpoint at several survey sizes, on a scratch SQLite database."
    requires_system_checks = []  # nothing may open the configured database first

    def add_arguments(self, parser):
        parser.add_argument("--sizes", default="1000,1000000",
                            help="Comma-separated numbers of responses, e.g. 1000,100000 (default 1000,1000000).")
        parser.add_argument("--repeat", type=int, default=5, help="Timed calls per size; the median is shown.")
        parser.add_argument("--db", help="Path of the scratch SQLite file (must not exist); default: a temp dir.")
        parser.add_argument("--keep", action="store_true", help="Keep the scratch database file afterwards.")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, sizes, repeat, db, keep, seed, **options):
        sizes = _sizes(sizes)
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        path, scratch_dir = _scratch_path(db)
        try:
            _use_scratch_database(path)
            self.stdout.write(f"Scratch database: {path}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(sizes, repeat, np.random.default_rng(seed))
        finally:
            connection.close()
            if keep:
                self.stdout.write(f"Kept {path}")
            elif scratch_dir:
                shutil.rmtree(scratch_dir, ignore_errors=True)
            else:
                Path(path).unlink(missing_ok=True)

    def _run(self, sizes, repeat, rng):
        survey, client = _survey(), _client()
        url = reverse("aggregation:api-estimates", args=[survey.slug])
        rows, have = [], 0
        self.stdout.write("Medians of the wall-clock time and of this process's CPU time (robust to a busy machine).")
        self.stdout.write(f"{'responses':>11} {'reports':>12} {'fill s':>8} {'rebuild s':>9} {'service ms':>11}"
                          f" {'(cpu)':>9} {'endpoint ms':>12} {'(cpu)':>9} {'scan ms':>9}")
        pairs = results.questions_with_mechanisms(survey)
        for size in sizes:
            started = time.perf_counter()
            _fill(survey, size - have, rng)
            have, filled = size, time.perf_counter() - started
            started = time.perf_counter()
            tallies.rebuild(survey)
            rebuilt = time.perf_counter() - started
            if tallies.differences(survey):
                raise CommandError("the rebuilt tallies disagree with the reports")
            service = _median(lambda: results.survey_results(survey), repeat)
            endpoint = _median(lambda: _get(client, url), repeat)
            scan = _median(lambda: results.count_reports_scan(pairs), min(repeat, 3))
            rows.append((size, service, endpoint, scan))
            self.stdout.write(f"{size:>11,} {size * len(QUESTIONS):>12,} {filled:>8.1f} {rebuilt:>9.2f}"
                              f" {service[0] * 1e3:>11.2f} {service[1] * 1e3:>9.2f} {endpoint[0] * 1e3:>12.2f}"
                              f" {endpoint[1] * 1e3:>9.2f} {scan[0] * 1e3:>9.1f}")
        if len(rows) > 1:
            (small, s0, e0, c0), (large, s1, e1, c1) = rows[0], rows[-1]
            self.stdout.write(
                f"Ratio {large:,} / {small:,} responses ({large / small:,.0f}x): service {s1[0] / s0[0]:,.1f}x "
                f"(cpu {s1[1] / s0[1]:,.1f}x), endpoint {e1[0] / e0[0]:,.1f}x (cpu {e1[1] / e0[1]:,.1f}x); "
                f"the old report scan {c1[0] / c0[0]:,.1f}x ({c1[0] * 1e3:,.1f} ms at the largest size).")


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise CommandError("--sizes must be comma-separated integers") from None
    if not sizes or sizes[0] < 1:
        raise CommandError("--sizes must be positive")
    return sizes


def _scratch_path(db):
    if db:
        if Path(db).exists():
            raise CommandError(f"{db} exists; the benchmark only writes to a new file")
        return str(Path(db).resolve()), None
    scratch_dir = tempfile.mkdtemp(prefix="bench-results-")
    return str(Path(scratch_dir) / "bench.sqlite3"), scratch_dir


def _use_scratch_database(path: str) -> None:
    if connection.vendor != "sqlite":
        raise CommandError("bench_results runs on a scratch SQLite file; unset DATABASE_URL to use the SQLite engine")
    configured = Path(str(settings.DATABASES["default"]["NAME"])).resolve()
    if Path(path).resolve() == configured:
        raise CommandError("refusing to use the configured database")
    connection.close()
    connection.settings_dict["NAME"] = path  # the same dict as settings.DATABASES["default"]
    with connection.cursor() as cursor:  # a throwaway file: durability is not wanted
        for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -1000000",
                       "temp_store = MEMORY"):
            cursor.execute(f"PRAGMA {pragma}")


def _survey() -> Survey:
    survey = Survey.objects.create(slug="bench", title="Benchmark", status=Survey.Status.OPEN, epsilon_budget=20)
    for order, (kind, name, parameter, k) in enumerate(QUESTIONS, start=1):
        question = Question.objects.create(
            survey=survey, order=order, kind=kind, mechanism_name=name, text=f"Question {order}",
            q=parameter if name == "qrr" else None, epsilon=None if name == "qrr" else parameter)
        if kind == "single_choice":
            Option.objects.bulk_create(Option(question=question, order=j, label=f"Option {j}") for j in range(k))
    return survey


def _client() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("bench", password=None))
    return client


def _fill(survey: Survey, count: int, rng: np.random.Generator) -> None:
    """Add `count` responses (10 reports each), randomized by ldp from a fixed truth."""
    if count <= 0:
        return
    questions = [(q.pk, q.mechanism()) for q in survey.ordered_questions()]
    version, day = survey.mechanism_version(), "2026-01-01"
    with connection.cursor() as cursor:  # rows are consistent by construction; skip the per-row FK lookups
        cursor.execute("PRAGMA foreign_keys = OFF")
    with transaction.atomic(), connection.cursor() as cursor:
        dropped = _drop_report_indexes(cursor)
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            raw = rng.bytes(32 * size).hex()
            # Sorted ids, and reports written response by response: the unique
            # (response, question) index then grows in order instead of at random.
            ids = sorted(raw[64 * i:64 * i + 32] for i in range(size))
            keys = [raw[64 * i + 32:64 * i + 64] for i in range(size)]
            cursor.executemany(
                "INSERT INTO collection_response (id, survey_id, mechanism_version, submitted_on, submission_key)"
                " VALUES (%s, %s, %s, %s, %s)",
                [(rid, survey.pk, version, day, key) for rid, key in zip(ids, keys)])
            columns = [_randomized(mechanism, size, rng) for _, mechanism in questions]
            question_ids = [question_id for question_id, _ in questions]
            cursor.executemany(
                "INSERT INTO collection_report (response_id, question_id, value) VALUES (%s, %s, %s)",
                ((rid, question_id, values[i]) for i, rid in enumerate(ids)
                 for question_id, values in zip(question_ids, columns)))
        for sql in dropped:
            cursor.execute(sql)
        cursor.execute("PRAGMA analysis_limit = 1000")  # planner statistics from a sample: seconds, not minutes
        cursor.execute("ANALYZE")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA foreign_keys = ON")


def _randomized(mechanism, size: int, rng: np.random.Generator) -> list[int]:
    """`size` reports as stored: option indexes, or for unary encodings the bitmask (bit j = option j)."""
    values = mechanism.randomize(rng.choice(mechanism.k, size=size, p=_truth(mechanism.k)), rng)
    if values.ndim == 2:
        values = values.astype(np.int64) @ (np.int64(1) << np.arange(mechanism.k, dtype=np.int64))
    return values.tolist()


def _drop_report_indexes(cursor) -> list[str]:
    """Drop the report table's secondary indexes for the load; returns the SQL to rebuild them."""
    cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                   "AND tbl_name = 'collection_report' AND sql IS NOT NULL")
    found = cursor.fetchall()
    for name, _ in found:
        cursor.execute(f'DROP INDEX "{name}"')
    return [sql for _, sql in found]


def _truth(k: int) -> list[float]:
    weights = np.array([math.exp(-j / 2) for j in range(k)])
    return list(weights / weights.sum())


def _get(client, url):
    with override_settings(ALLOWED_HOSTS=["testserver"]):  # the test client's host name
        response = client.get(url)
    if response.status_code != 200:
        raise CommandError(f"the estimates endpoint answered {response.status_code}")


def _median(call, repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of `repeat` calls, after one warm-up call."""
    call()  # warm the page cache and the imports
    wall, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall), statistics.median(cpu)

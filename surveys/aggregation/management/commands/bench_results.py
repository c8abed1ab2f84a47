"""Benchmark: how the estimates endpoint's time grows with the number of responses.

    python manage.py bench_results                       # 10^3 and 10^6 responses
    python manage.py bench_results --sizes 1000,100000 --repeat 7
    DATABASE_URL=postgres://... python manage.py bench_results   # the same on PostgreSQL

It runs on the configured database engine, SQLite or PostgreSQL, but never touches the
configured database: before any query it points the default connection at a scratch
database, migrates it, and removes it afterwards (also on an error or Ctrl-C) unless --keep
is given. On SQLite that is a fresh file in a new temporary directory (or --db PATH, which
must not exist yet); on PostgreSQL a new database on the same server, named
<configured name>_bench_<pid> (or --db NAME, which must not exist yet), created and dropped
from a connection to the server's 'postgres' maintenance database.

It fills one 10-question survey (4 yes/no, 3 k-RR, 3 unary) with randomized responses,
growing it from one size to the next in large batches (SQLite: executemany, with foreign
keys off and the report table's secondary indexes dropped; PostgreSQL: COPY, with the
response and report tables' foreign keys, unique constraints and secondary indexes dropped),
rebuilding what it dropped (and ANALYZE) before timing, then rebuilds the survey's
tallies from the reports (the raw load bypasses the submission service that keeps them
current) and prints, per size, the median time of the results service (which reads the
tallies), of GET /api/v1/surveys/<slug>/estimates/ through the Django test client and, for
comparison, of the old count by a scan of the reports, and the ratio between the largest
and the smallest size, naming the database engine.
"""

from __future__ import annotations

import math
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import numpy as np
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.test.utils import override_settings
from django.urls import reverse

from surveys.aggregation import results
from surveys.collection import tallies
from surveys.collection.models import Option, Question, Survey

BATCH = 25_000  # responses per batch (x 10 reports)
RESPONSE_COLUMNS = ("id", "survey_id", "mechanism_version", "submitted_on", "submission_key")
REPORT_COLUMNS = ("response_id", "question_id", "value")
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
    help = "Time the estimates endpoint at several survey sizes, on a scratch SQLite or PostgreSQL database."
    requires_system_checks = []  # nothing may open the configured database first

    def add_arguments(self, parser):
        parser.add_argument("--sizes", default="1000,1000000",
                            help="Comma-separated numbers of responses, e.g. 1000,100000 (default 1000,1000000).")
        parser.add_argument("--repeat", type=int, default=5, help="Timed calls per size; the median is shown.")
        parser.add_argument("--db", help="The scratch database, which must not exist: a SQLite file path or a "
                                         "PostgreSQL database name; default: a temp dir / <name>_bench_<pid>.")
        parser.add_argument("--keep", action="store_true", help="Keep the scratch database afterwards.")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, sizes, repeat, db, keep, seed, **options):
        sizes = _sizes(sizes)
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        scratch = _scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, sizes, repeat, np.random.default_rng(seed))
        finally:
            scratch.remove(keep)
            if keep and scratch.created:
                self.stdout.write(f"Kept {scratch.name}")

    def _run(self, scratch, sizes, repeat, rng):
        survey, client = _survey(), _client()
        url = reverse("aggregation:api-estimates", args=[survey.slug])
        rows, have = [], 0
        self.stdout.write("Medians of the wall-clock time and of this process's CPU time (robust to a busy machine).")
        self.stdout.write(f"{'responses':>11} {'reports':>12} {'fill s':>8} {'rebuild s':>9} {'service ms':>11}"
                          f" {'(cpu)':>9} {'endpoint ms':>12} {'(cpu)':>9} {'scan ms':>9}")
        pairs = results.questions_with_mechanisms(survey)
        for size in sizes:
            started = time.perf_counter()
            _fill(scratch, survey, size - have, rng)
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
                f"{connection.display_name} ratio {large:,} / {small:,} responses ({large / small:,.0f}x): "
                f"service {s1[0] / s0[0]:,.1f}x (cpu {s1[1] / s0[1]:,.1f}x), "
                f"endpoint {e1[0] / e0[0]:,.1f}x (cpu {e1[1] / e0[1]:,.1f}x); "
                f"the old report scan {c1[0] / c0[0]:,.1f}x ({c1[0] * 1e3:,.1f} ms at the largest size).")


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise CommandError("--sizes must be comma-separated integers") from None
    if not sizes or sizes[0] < 1:
        raise CommandError("--sizes must be positive")
    return sizes


# --- the scratch database: everything that differs between SQLite and PostgreSQL ----------

class _Scratch:
    """A new database of the configured engine that the default connection uses meanwhile.

    create() makes it and points the default connection at it; loading() wraps a bulk load;
    write() adds rows; remove() points the connection back at the configured database
    (without connecting) and deletes the scratch one, if this object created it.
    """

    name: str

    def __init__(self):
        self.configured = connection.settings_dict["NAME"]  # the same dict as settings.DATABASES["default"]
        self.created = False

    def _use(self, name) -> None:
        connection.close()
        connection.settings_dict["NAME"] = name

    def remove(self, keep: bool) -> None:
        self._use(self.configured)
        if self.created and not keep:
            self._delete()


class _SQLiteScratch(_Scratch):
    def __init__(self, requested: str | None):
        super().__init__()
        self.directory = None
        if requested:
            path = Path(requested).resolve()
            if path.exists():
                raise CommandError(f"{requested} exists; the benchmark only writes to a new file")
            if path == Path(str(self.configured)).resolve():
                raise CommandError("refusing to use the configured database")
        else:
            self.directory = tempfile.mkdtemp(prefix="bench-results-")
            path = Path(self.directory) / "bench.sqlite3"
        self.name = str(path)

    def describe(self) -> str:
        return f"SQLite {sqlite3.sqlite_version}"

    def create(self) -> None:
        self.created = True  # the file appears on the first connection
        self._use(self.name)
        with connection.cursor() as cursor:  # a throwaway file: durability is not wanted
            for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -1000000",
                           "temp_store = MEMORY"):
                cursor.execute(f"PRAGMA {pragma}")

    def _delete(self) -> None:
        if self.directory:
            shutil.rmtree(self.directory, ignore_errors=True)
        else:
            Path(self.name).unlink(missing_ok=True)

    @contextmanager
    def loading(self):
        # Rows are consistent by construction: skip the per-row foreign-key lookups. The pragma
        # is a no-op inside a transaction, hence outside the atomic block.
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA foreign_keys = OFF")
        with transaction.atomic(), connection.cursor() as cursor:
            rebuild = self._drop_report_indexes(cursor)
            yield cursor
            for sql in rebuild:
                cursor.execute(sql)
            cursor.execute("PRAGMA analysis_limit = 1000")  # planner statistics from a sample: seconds, not minutes
            cursor.execute("ANALYZE")
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA foreign_keys = ON")

    @staticmethod
    def write(cursor, table: str, columns: tuple[str, ...], rows) -> None:
        placeholders = ", ".join(["%s"] * len(columns))
        cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})", rows)

    @staticmethod
    def _drop_report_indexes(cursor) -> list[str]:
        """Drop the report table's secondary indexes for the load; returns the SQL to rebuild them."""
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                       "AND tbl_name = 'collection_report' AND sql IS NOT NULL")
        found = cursor.fetchall()
        for name, _ in found:
            cursor.execute(f'DROP INDEX "{name}"')
        return [sql for _, sql in found]


class _PostgreSQLScratch(_Scratch):
    def __init__(self, requested: str | None):
        super().__init__()
        suffix = f"_bench_{os.getpid()}"
        # Cut the configured name so the whole fits PostgreSQL's 63-byte identifiers (it would
        # otherwise truncate it silently).
        self.name = requested or f"{self.configured[:connection.ops.max_name_length() - len(suffix)]}{suffix}"

    def describe(self) -> str:
        version, settings_dict = connection.pg_version, connection.settings_dict
        return (f"PostgreSQL {version // 10000}.{version % 10000} "
                f"on {settings_dict['HOST'] or 'localhost'}:{settings_dict['PORT'] or 5432}")

    def create(self) -> None:
        # As Django's test runner makes its databases: from a connection to the 'postgres'
        # maintenance database, in autocommit (CREATE DATABASE cannot run in a transaction), so
        # the configured database is not even opened.
        with connection._nodb_cursor() as cursor:
            try:
                cursor.execute(f"CREATE DATABASE {connection.ops.quote_name(self.name)}")
            except DatabaseError as error:
                if getattr(error.__cause__, "sqlstate", None) == "42P04":  # duplicate_database: not ours
                    raise CommandError(f"{self.name} exists; the benchmark only writes to a new database") from None
                raise
        self.created = True
        self._use(self.name)

    def _delete(self) -> None:
        # Called after remove() pointed the connection back, so the fallback of _nodb_cursor
        # (the configured database, if 'postgres' is unreachable) is never the scratch one.
        # FORCE: a connection left behind by an interrupted query must not keep it alive.
        with connection._nodb_cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {connection.ops.quote_name(self.name)} WITH (FORCE)")

    @contextmanager
    def loading(self):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL maintenance_work_mem = '512MB'")  # fewer disk passes in the index rebuilds' sorts
            rebuild = [sql for table in ("collection_response", "collection_report")
                       for sql in self._drop_secondary(cursor, table)]
            yield cursor
            for sql in rebuild:
                cursor.execute(sql)
        with connection.cursor() as cursor:
            # VACUUM (outside a transaction) now rather than autovacuum during the timings; it also
            # sets the visibility map and hint bits, as on a settled table, and ANALYZE the
            # planner statistics.
            cursor.execute("VACUUM (ANALYZE) collection_response, collection_report")

    @staticmethod
    def write(cursor, table: str, columns: tuple[str, ...], rows) -> None:
        # COPY through psycopg 3's cursor (the Django cursor wrapper passes copy() through):
        # one stream per batch instead of a statement per row.
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    @staticmethod
    def _drop_secondary(cursor, table: str) -> list[str]:
        """Drop a table's unique and foreign-key constraints and its other secondary indexes for
        the load (per-row index upkeep and foreign-key triggers are most of its cost: the SQLite
        path turns its foreign keys off); returns the SQL to rebuild them: indexes, then unique
        constraints, then foreign keys.

        The primary key stays, and so do CHECK constraints: next to free per row, while adding
        one back would scan the table.
        """
        quote = connection.ops.quote_name
        cursor.execute("SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
                       "WHERE indrelid = %s::regclass "
                       "AND NOT EXISTS (SELECT FROM pg_constraint WHERE conindid = indexrelid)", [table])
        indexes = cursor.fetchall()
        cursor.execute("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                       "WHERE conrelid = %s::regclass AND contype IN ('u', 'f') "
                       "ORDER BY contype DESC", [table])  # 'u' before 'f'
        constraints = cursor.fetchall()
        for name, _ in constraints:
            cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT {quote(name)}")
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {name}")  # regclass text: already quoted where needed
        return ([sql for _, sql in indexes]
                + [f"ALTER TABLE {table} ADD CONSTRAINT {quote(name)} {sql}" for name, sql in constraints])


def _scratch_for(vendor: str) -> type[_Scratch]:
    scratches = {"sqlite": _SQLiteScratch, "postgresql": _PostgreSQLScratch}
    if vendor not in scratches:
        raise CommandError(f"bench_results runs on SQLite or PostgreSQL, not {vendor}")
    return scratches[vendor]


# --- the survey and its responses --------------------------------------------------------

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


def _fill(scratch: _Scratch, survey: Survey, count: int, rng: np.random.Generator) -> None:
    """Add `count` responses (10 reports each), randomized by ldp from a fixed truth."""
    if count <= 0:
        return
    questions = [(q.pk, q.mechanism()) for q in survey.ordered_questions()]
    question_ids = [question_id for question_id, _ in questions]
    version, day = survey.mechanism_version(), "2026-01-01"
    with scratch.loading() as cursor:
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            raw = rng.bytes(32 * size).hex()
            # Sorted ids, and reports written response by response: the unique
            # (response, question) index then grows in order instead of at random.
            ids = sorted(raw[64 * i:64 * i + 32] for i in range(size))
            keys = [raw[64 * i + 32:64 * i + 64] for i in range(size)]
            scratch.write(cursor, "collection_response", RESPONSE_COLUMNS,
                          [(rid, survey.pk, version, day, key) for rid, key in zip(ids, keys)])
            columns = [_randomized(mechanism, size, rng) for _, mechanism in questions]
            scratch.write(cursor, "collection_report", REPORT_COLUMNS,
                          ((rid, question_id, values[i]) for i, rid in enumerate(ids)
                           for question_id, values in zip(question_ids, columns)))


def _randomized(mechanism, size: int, rng: np.random.Generator) -> list[int]:
    """`size` reports as stored: option indexes, or for unary encodings the bitmask (bit j = option j)."""
    values = mechanism.randomize(rng.choice(mechanism.k, size=size, p=_truth(mechanism.k)), rng)
    if values.ndim == 2:
        values = values.astype(np.int64) @ (np.int64(1) << np.arange(mechanism.k, dtype=np.int64))
    return values.tolist()


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

"""Benchmark: how the estimates endpoint's time grows with the number of responses.

    python bench/results_bench.py                       # 10^3 and 10^6 responses
    python bench/results_bench.py --sizes 1000,100000 --repeat 7
    DATABASE_URL=postgres://... python bench/results_bench.py   # the same on PostgreSQL

It runs on the configured database engine, SQLite or PostgreSQL, but never touches the
configured database: before any query it points the default connection at a scratch
database, migrates it, and removes it afterwards (also on an error or Ctrl-C) unless --keep
is given. On SQLite that is a fresh file in a new temporary directory (or --db PATH, which
must not exist yet); on PostgreSQL a new database on the same server, named
<configured name>_bench_<pid> (or --db NAME, which must not exist yet), created and dropped
from a connection to the server's 'postgres' maintenance database.

It fills one 10-question survey (4 yes/no, 3 k-RR, 3 unary; --questions N: N questions, those
mechanisms in turn) with randomized responses,
growing it from one size to the next in large batches (SQLite: executemany, with foreign
keys off and the report table's secondary indexes dropped; PostgreSQL: COPY, with the
response and report tables' foreign keys, unique constraints and secondary indexes dropped),
rebuilding what it dropped (and ANALYZE) before timing, then rebuilds the survey's
tallies from the reports (the raw load bypasses the submission service that keeps them
current), rewrites the tables in key order as `manage.py reorder_storage` does (timed) and
prints, per size, the median time of the results service (which reads the
tallies), of GET /api/v1/surveys/<slug>/estimates/ through the Django test client and, for
comparison, of the old count by a scan of the reports, and the ratio between the largest
and the smallest size, naming the database engine.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))  # the project, after bench/ itself (for `scratch`)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

import django  # noqa: E402  (the settings module must be set first)

django.setup()

import numpy as np  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.management.base import BaseCommand, CommandError, CommandParser  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402
from scratch import Scratch, scratch_for  # noqa: E402

from ldp import Mechanism  # noqa: E402
from ldp.mechanisms.base import IntArray  # noqa: E402
from surveys.aggregation.results import service as results  # noqa: E402
from surveys.aggregation.results import versions  # noqa: E402
from surveys.collection import answer_rows, arrival_order, builder, plan, tallies  # noqa: E402
from surveys.collection.builder import QuestionSpec  # noqa: E402
from surveys.collection.models import Survey  # noqa: E402
from surveys.collection.models.keys import KEY_BITS  # noqa: E402

BATCH = 25_000  # responses per batch (x 10 reports)
RESPONSE_COLUMNS = ("id", "survey_id", "mechanism_version", "submitted_on", "submission_key")
REPORT_COLUMNS = ("id", "response_id", "question_id", "value")
def _options(k: int) -> list[str]:
    return [f"Option {j}" for j in range(k)]


_MECHANISMS: list[tuple[str, dict[str, Any]]] = [  # each question's mechanism name and QuestionSpec parameters
    ("qrr", {"q": "0.5"}),
    ("bitflip", {"epsilon": 0.5}),
    ("qrr", {"q": "0.25"}),
    ("bitflip", {"epsilon": 1.0}),
    ("krr", {"epsilon": 1.0, "options": _options(4)}),
    ("krr", {"epsilon": 1.0, "options": _options(6)}),
    ("krr", {"epsilon": 0.5, "options": _options(3)}),
    ("oue", {"epsilon": 1.0, "options": _options(5)}),
    ("sue", {"epsilon": 1.0, "options": _options(4)}),
    ("oue", {"epsilon": 0.5, "options": _options(8)}),
]


def questions(count: int = len(_MECHANISMS)) -> list[QuestionSpec]:
    """`count` questions, the mechanisms above in turn (20: each of them twice)."""
    return [QuestionSpec(f"Question {order}", *_MECHANISMS[(order - 1) % len(_MECHANISMS)][:1],
                         **_MECHANISMS[(order - 1) % len(_MECHANISMS)][1])
            for order in range(1, count + 1)]


QUESTIONS = questions()


class Command(BaseCommand):
    help = "Time the estimates endpoint at several survey sizes, on a scratch SQLite or PostgreSQL database."
    requires_system_checks = []  # nothing may open the configured database first

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="1000,1000000",
                            help="Comma-separated numbers of responses, e.g. 1000,100000 (default 1000,1000000).")
        parser.add_argument("--repeat", type=int, default=5, help="Timed calls per size; the median is shown.")
        parser.add_argument("--db", help="The scratch database, which must not exist: a SQLite file path or a "
                                         "PostgreSQL database name; default: a temp dir / <name>_bench_<pid>.")
        parser.add_argument("--keep", action="store_true", help="Keep the scratch database afterwards.")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--questions", type=int, default=len(QUESTIONS),
                            help=f"Questions in the survey, the {len(QUESTIONS)} mechanisms in turn (default "
                                 f"{len(QUESTIONS)}).")

    def handle(self, *args: Any, sizes: str, repeat: int, db: str | None, keep: bool, seed: int,
               questions: int, **options: Any) -> None:
        wanted = _sizes(sizes)
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, wanted, repeat, np.random.default_rng(seed), questions)
        finally:
            scratch.remove(keep)
            if keep and scratch.created:
                self.stdout.write(f"Kept {scratch.name}")

    def _run(self, scratch: Scratch, sizes: list[int], repeat: int, rng: np.random.Generator,
             count: int) -> None:
        survey, client = _survey(count), _client()
        url = reverse("aggregation:api-estimates", args=[survey.slug])
        rows: list[tuple[int, tuple[float, float], tuple[float, float], tuple[float, float]]] = []
        have = 0
        self.stdout.write("Medians of the wall-clock time and of this process's CPU time (robust to a busy machine).")
        self.stdout.write(f"{'responses':>11} {'reports':>12} {'fill s':>8} {'rebuild s':>9} {'reorder s':>9}"
                          f" {'service ms':>11}"
                          f" {'(cpu)':>9} {'endpoint ms':>12} {'(cpu)':>9} {'scan ms':>9} {'version ms':>10}")
        current = plan.of(survey)
        questions = current.questions
        for size in sizes:
            started = time.perf_counter()
            _fill(scratch, survey, size - have, rng)
            have, filled = size, time.perf_counter() - started
            started = time.perf_counter()
            tallies.rebuild(survey)
            rebuilt = time.perf_counter() - started
            if tallies.differences(survey):
                raise CommandError("the rebuilt tallies disagree with the reports")
            started = time.perf_counter()
            arrival_order.rewrite_in_key_order()  # what `reorder_storage` costs at this size
            reordered = time.perf_counter() - started
            service = _median(lambda: results.survey_results(survey), repeat)
            endpoint = _median(lambda: _get(client, url), repeat)
            scan = _median(lambda: tallies.count_from_reports(questions), min(repeat, 3))
            # the version check alone (part of the service's time)
            version = _median(lambda: versions.stale_versions(survey, current), repeat)
            rows.append((size, service, endpoint, scan))
            self.stdout.write(f"{size:>11,} {size * count:>12,} {filled:>8.1f} {rebuilt:>9.2f}"
                              f" {reordered:>9.2f} {service[0] * 1e3:>11.2f} {service[1] * 1e3:>9.2f}"
                              f" {endpoint[0] * 1e3:>12.2f} {endpoint[1] * 1e3:>9.2f} {scan[0] * 1e3:>9.1f}"
                              f" {version[0] * 1e3:>10.3f}")
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


# --- the survey and its responses --------------------------------------------------------

def _survey(count: int = len(QUESTIONS)) -> Survey:
    """The benchmark's survey of `count` questions (`questions`), its budget room for all of them."""
    return builder.create_survey("bench", "Benchmark", questions(count), status=Survey.Status.OPEN,
                                 epsilon_budget=2 * count)


def _client() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("bench", password=None))
    return client


def _fill(scratch: Scratch, survey: Survey, count: int, rng: np.random.Generator) -> None:
    """Add `count` responses (10 reports each), randomized by ldp from a fixed truth."""
    if count <= 0:
        return
    current = plan.of(survey)
    version, day = current.version, "2026-01-01"
    with scratch.loading() as cursor:
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            raw = rng.bytes(32 * size).hex()
            # Sorted ids, and reports written response by response: the unique
            # (response, question) index then grows in order instead of at random.
            ids = sorted(raw[64 * i:64 * i + 32] for i in range(size))
            keys = [raw[64 * i + 32:64 * i + 64] for i in range(size)]
            columns = [_randomized(q.mechanism, size, rng).tolist() for q in current]
            # Each response's answers, as the store keeps them (rebuild_counts then finds nothing to change).
            answers = [answer_rows.joined(row) for row in zip(*columns, strict=True)]
            scratch.write(cursor, "collection_response", (*RESPONSE_COLUMNS, "answers"),
                          [(rid, survey.pk, version, day, key, text)
                           for rid, key, text in zip(ids, keys, answers, strict=True)])
            # Random keys like the store's (models.keys): 62 random bits above 2**62.
            report_keys = iter((rng.integers(0, 1 << KEY_BITS, size * len(current)) | 1 << KEY_BITS).tolist())
            scratch.write(cursor, "collection_report", REPORT_COLUMNS,
                          ((next(report_keys), rid, q.id, values[i]) for i, rid in enumerate(ids)
                           for q, values in zip(current, columns, strict=True)))


def _randomized(mechanism: Mechanism, size: int, rng: np.random.Generator) -> IntArray:
    """`size` reports as stored: option indexes, or for unary encodings the bitmask (bit j = option j)."""
    return mechanism.encode_many(mechanism.randomize(rng.choice(mechanism.k, size=size, p=_truth(mechanism.k)), rng))


def _truth(k: int) -> list[float]:
    weights = np.array([math.exp(-j / 2) for j in range(k)])
    return list(weights / weights.sum())


def _get(client: Client, url: str) -> None:
    with override_settings(ALLOWED_HOSTS=["testserver"]):  # the test client's host name
        response = client.get(url)
    if response.status_code != 200:
        raise CommandError(f"the estimates endpoint answered {response.status_code}")


def _median(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of `repeat` calls, after one warm-up call."""
    call()  # warm the page cache and the imports
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall), statistics.median(cpu)


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "results_bench", *sys.argv[1:]])

"""Benchmark: the exports' time and memory as the number of responses grows, against the database
engine's own dump of the same reports.

    python bench/export_bench.py                          # 10^3, 10^5 and 10^6 responses
    python bench/export_bench.py --sizes 1000,100000 --formats csv,dta --repeat 3
    DATABASE_URL=postgres://... python bench/export_bench.py   # the same on PostgreSQL

The same scratch database and 10-question survey as bench/results_bench.py (its fill, on
bench/scratch.py: never the configured database, removed afterwards unless --keep), its tallies
rebuilt for the estimates. Per size:

- the engine's own dump of the reports' three columns (response_id, question_id, value): on SQLite
  `sqlite3 -csv` (the command-line shell, C) of the database file, on PostgreSQL
  COPY (SELECT ...) TO STDOUT read through psycopg's copy;
- per export (reports.csv, reports.json, reports.dta, reports.sav, estimates.csv, crosstab.csv of
  questions 1 and 2), downloaded through the Django test client as a researcher, its body read and
  dropped block by block (after one warm-up download at the first size), --repeat times untraced:
  the wall-clock seconds, the CPU seconds (this process, which runs SQLite too, plus on PostgreSQL
  the server process that ran its queries, read from /proc), the MiB sent, and the ratios of both
  times to the dump's; then once more under tracemalloc for the peak of Python's traced allocations
  (the heap the export builds, not the interpreter and libraries already loaded), and this
  process's resident set high-water mark so far (on SQLite that counts the engine's page cache,
  which the scratch database enlarges for the load: its connection is kept throughout, so that on
  PostgreSQL one server process runs every query and its CPU time can be read).

The machine is shared: the CPU seconds (and the CPU ratio) say what the export costs, the wall
clock how long a researcher waits on this machine as it was. A bounded export has the same traced
peak at every size; the last lines give, per export, the largest size's peak over the smallest's.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.management.base import BaseCommand, CommandError, CommandParser  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402
from results_bench import _client, _fill, _sizes, _survey  # noqa: E402
from scratch import scratch_for  # noqa: E402

from surveys.aggregation.models import PreparedExport  # noqa: E402
from surveys.collection import plan, tallies  # noqa: E402
from surveys.collection.models import Report, Survey  # noqa: E402

FORMATS = {"csv": "export-reports-csv", "json": "export-reports-json", "dta": "export-reports-dta",
           "sav": "export-reports-sav", "estimates": "export-estimates", "crosstab": "export-crosstab"}
MIB = 1024 * 1024
DUMP_COLUMNS = "response_id, question_id, value"


class Command(BaseCommand):
    help = "Time and memory of the exports at several survey sizes, against the engine's own dump."
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="1000,100000,1000000")
        parser.add_argument("--formats", default=",".join(FORMATS),
                            help=f"Comma-separated, of: {', '.join(FORMATS)}.")
        parser.add_argument("--repeat", type=int, default=2, help="Untraced timings per size and export.")
        parser.add_argument("--db", help="The scratch database, which must not exist.")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, sizes: str, formats: str, repeat: int, db: str | None, keep: bool, seed: int,
               **options: Any) -> None:
        wanted = _sizes(sizes)
        chosen = [name.strip() for name in formats.split(",") if name.strip()]
        if not chosen or set(chosen) - set(FORMATS):
            raise CommandError(f"--formats must name some of {', '.join(FORMATS)}")
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        if connection.vendor == "sqlite" and not shutil.which("sqlite3"):
            raise CommandError("the SQLite dump needs the sqlite3 command-line shell (apt-get install sqlite3)")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, wanted, chosen, repeat, np.random.default_rng(seed))
        finally:
            scratch.remove(keep)
            if keep and scratch.created:
                self.stdout.write(f"Kept {scratch.name}")

    def _run(self, scratch: Any, sizes: list[int], formats: list[str], repeat: int,
             rng: np.random.Generator) -> None:
        survey, client = _survey(), _client()
        peaks: dict[str, list[tuple[int, float]]] = {name: [] for name in formats}
        have = 0
        self.stdout.write(f"{'responses':>11} {'export':>9} {'seconds':>8} {'cpu s':>7} {'MiB':>8} {'x dump':>7}"
                          f" {'(cpu)':>6} {'peak MiB':>9} {'max RSS MiB':>12}")
        for size in sizes:
            started = time.perf_counter()
            _fill(scratch, survey, size - have, rng)
            tallies.rebuild(survey)  # the raw load bypasses the counters the estimates read
            have = size
            self.stdout.write(f"{size:>11,} responses filled in {time.perf_counter() - started:.1f} s")
            dumps = [_dump(survey) for _ in range(repeat)]
            for seconds, cpu, sent in dumps:
                self.stdout.write(f"{size:>11,} {'dump':>9} {seconds:>8.2f} {cpu:>7.2f} {sent / MIB:>8.1f}")
            dump = min(dumps)
            for name in formats:
                url = _url(survey, name)
                if size == sizes[0]:
                    _download(client, url)  # warm up: the first download imports pandas and pyreadstat
                for _ in range(repeat):
                    seconds, cpu, sent = _download(client, url)
                    self.stdout.write(f"{size:>11,} {name:>9} {seconds:>8.2f} {cpu:>7.2f} {sent / MIB:>8.1f}"
                                      f" {seconds / dump[0]:>7.2f} {cpu / dump[1]:>6.2f}")
                peak = _traced_peak(client, url)
                peaks[name].append((size, peak))
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
                self.stdout.write(f"{size:>11,} {name:>9} {'(traced)':>8} {'':>7} {'':>8} {'':>7} {'':>6}"
                                  f" {peak / MIB:>9.2f} {rss:>12.0f}")
        for name, rows in peaks.items():
            if len(rows) > 1:
                (small, p0), (large, p1) = rows[0], rows[-1]
                self.stdout.write(f"{connection.display_name} {name}: peak traced memory {p1 / MIB:.2f} MiB at "
                                  f"{large:,} responses, {p0 / MIB:.2f} MiB at {small:,} ({p1 / p0:.2f}x).")


def _url(survey: Survey, name: str) -> str:
    url = reverse(f"aggregation:{FORMATS[name]}", args=[survey.slug])
    if name == "crosstab":
        first, second = plan.of(survey).questions[:2]
        url += f"?a={first.id}&b={second.id}"
    return url


def _dump(survey: Survey) -> tuple[float, float, int]:
    """Seconds, CPU seconds and bytes of the engine's own dump of every report's three columns."""
    table = connection.ops.quote_name(Report._meta.db_table)
    query = f"SELECT {DUMP_COLUMNS} FROM {table}"
    if connection.vendor == "sqlite":
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        with subprocess.Popen(["sqlite3", "-csv", str(connection.settings_dict["NAME"]), query],
                              stdout=subprocess.PIPE) as shell:
            assert shell.stdout is not None
            sent = 0
            while block := shell.stdout.read(1 << 20):
                sent += len(block)
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if shell.returncode:
            raise CommandError(f"sqlite3 exited with {shell.returncode}")
        return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, sent
    connection.ensure_connection()
    server = _server_pid()
    started, cpu = time.perf_counter(), _cpu(server)
    sent = 0
    with connection.cursor() as cursor, cursor.copy(f"COPY ({query}) TO STDOUT") as copy:
        for block in copy:
            sent += len(block)
    return time.perf_counter() - started, _cpu(server) - cpu, sent


def _server_pid() -> int | None:
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _cpu(server: int | None = None) -> float:
    """This process's CPU seconds, plus those of the PostgreSQL server process `server` (the same machine)."""
    found = time.process_time()
    if server is not None:
        fields = Path(f"/proc/{server}/stat").read_text().rsplit(")", 1)[1].split()
        found += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return found


def _download(client: Client, url: str) -> tuple[float, float, int]:
    """Seconds, CPU seconds and bytes of one download, its body read and dropped block by block."""
    connection.ensure_connection()  # the test client keeps the connection between requests
    server = _server_pid()
    started, cpu = time.perf_counter(), _cpu(server)
    sent = _get(client, url)
    return time.perf_counter() - started, _cpu(server) - cpu, sent


def _traced_peak(client: Client, url: str) -> int:
    tracemalloc.start()
    try:
        _get(client, url)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def _get(client: Client, url: str) -> int:
    """The export prepared anew within the request (into a temporary directory), then sent from its file.
    DEBUG off, as in production: with it on, Django would keep every query's text (one per block on SQLite)
    in connection.queries, which the traced peak would count."""
    PreparedExport.objects.all().delete()
    with tempfile.TemporaryDirectory() as folder, override_settings(
            ALLOWED_HOSTS=["testserver"], DEBUG=False, EXPORT_BACKGROUND=False, EXPORT_DIR=Path(folder)):
        response = client.get(url)
        if response.status_code != 200:
            raise CommandError(f"{url} answered {response.status_code}")
        sent = 0
        if response.streaming:
            for block in response.streaming_content:  # type: ignore[attr-defined]  # a streaming response
                sent += len(block)
        else:
            sent = len(response.content)
    # Not response.close(): the test client has closed the response, without closing the database connection
    # as the end of a request otherwise does (its server process is the one whose CPU time is read).
    return sent


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "export_bench", *sys.argv[1:]])

"""Benchmark: the report exports' time and peak memory as the number of responses grows.

    python bench/export_bench.py                          # 10^3 and 10^6 responses
    python bench/export_bench.py --sizes 1000,100000 --formats csv,dta
    DATABASE_URL=postgres://... python bench/export_bench.py   # the same on PostgreSQL

The same scratch database and 10-question survey as bench/results_bench.py (its fill, on
bench/scratch.py: never the configured database, removed afterwards unless --keep). Per size and
export (reports.csv, reports.json, reports.dta, reports.sav) it downloads the export through the
Django test client as a researcher, reading the streamed body block by block and keeping none
of it (after one warm-up download at the first size), and prints the wall-clock time, the bytes
sent, the peak of Python's traced allocations during the download (tracemalloc: the heap the
export builds, not the interpreter and libraries already loaded) and this process's resident
set high-water mark so far. A bounded export has the same peak at every size; the last lines
give the ratio of the largest size's peak to the smallest's.
"""

from __future__ import annotations

import os
import resource
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

FORMATS = {"csv": "export-reports-csv", "json": "export-reports-json", "dta": "export-reports-dta",
           "sav": "export-reports-sav"}
MIB = 1024 * 1024


class Command(BaseCommand):
    help = "Time and peak memory of the report exports at several survey sizes, on a scratch database."
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="1000,1000000")
        parser.add_argument("--formats", default=",".join(FORMATS), help="Comma-separated: csv, json, dta, sav.")
        parser.add_argument("--db", help="The scratch database, which must not exist.")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, sizes: str, formats: str, db: str | None, keep: bool, seed: int,
               **options: Any) -> None:
        wanted = _sizes(sizes)
        chosen = [name.strip() for name in formats.split(",") if name.strip()]
        if not chosen or set(chosen) - set(FORMATS):
            raise CommandError(f"--formats must name some of {', '.join(FORMATS)}")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, wanted, chosen, np.random.default_rng(seed))
        finally:
            scratch.remove(keep)
            if keep and scratch.created:
                self.stdout.write(f"Kept {scratch.name}")

    def _run(self, scratch: Any, sizes: list[int], formats: list[str], rng: np.random.Generator) -> None:
        survey, client = _survey(), _client()
        peaks: dict[str, list[tuple[int, float]]] = {name: [] for name in formats}
        have = 0
        self.stdout.write(f"{'responses':>11} {'export':>6} {'fill s':>8} {'seconds':>9} {'MiB sent':>9}"
                          f" {'peak MiB':>9} {'max RSS MiB':>12}")
        for size in sizes:
            started = time.perf_counter()
            _fill(scratch, survey, size - have, rng)
            have, filled = size, time.perf_counter() - started
            for name in formats:
                url = reverse(f"aggregation:{FORMATS[name]}", args=[survey.slug])
                if size == sizes[0]:
                    _download(client, url)  # warm up: the first download imports pandas and pyreadstat
                seconds, sent, peak = _download(client, url)
                peaks[name].append((size, peak))
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
                self.stdout.write(f"{size:>11,} {name:>6} {filled:>8.1f} {seconds:>9.1f} {sent / MIB:>9.1f}"
                                  f" {peak / MIB:>9.2f} {rss:>12.0f}")
        for name, rows in peaks.items():
            if len(rows) > 1:
                (small, p0), (large, p1) = rows[0], rows[-1]
                self.stdout.write(f"{connection.display_name} {name}: peak traced memory {p1 / MIB:.2f} MiB at "
                                  f"{large:,} responses, {p0 / MIB:.2f} MiB at {small:,} ({p1 / p0:.2f}x).")


def _download(client: Client, url: str) -> tuple[float, int, int]:
    """Seconds, bytes and peak traced allocation of one download, its body read and dropped block by block:
    the export prepared anew within the request (into a temporary directory), then sent from its file."""
    PreparedExport.objects.all().delete()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as folder, \
                override_settings(ALLOWED_HOSTS=["testserver"], EXPORT_BACKGROUND=False, EXPORT_DIR=Path(folder)):
            response = client.get(url)
            if response.status_code != 200:
                raise CommandError(f"{url} answered {response.status_code}")
            sent = 0
            for block in response.streaming_content:  # type: ignore[attr-defined]  # a streaming response
                sent += len(block)
            response.close()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return time.perf_counter() - started, sent, peak


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "export_bench", *sys.argv[1:]])

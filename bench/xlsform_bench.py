"""Benchmark: importing an XLSForm as the questions grow.

    python bench/xlsform_bench.py                    # 50, 200 and 800 questions
    python bench/xlsform_bench.py --sizes 200 --repeat 5
    DATABASE_URL=postgres://... python bench/xlsform_bench.py

Each form has that many yes/no questions randomized by the bit flip, written with openpyxl; each import
(surveys.collection.xlsform.importing: pyxform's reading, the app's checks, the survey written in one transaction)
runs on a scratch database (bench/scratch.py: never the configured one, removed afterwards) and is rolled back.
Prints the median wall-clock time (and this process's CPU time) per size and the load average: the machine is
shared.
"""

from __future__ import annotations

import os
import sys
from functools import partial
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.core.management.base import BaseCommand, CommandError, CommandParser  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from results_bench import _median, _sizes  # noqa: E402
from scratch import scratch_for  # noqa: E402

from surveys.collection.xlsform import importing  # noqa: E402
from tests.collection.xlsforms import workbook  # noqa: E402


def form(questions: int) -> bytes:
    return workbook([["type", "name", "label", "privacy"],
                     *(["select_one yn", f"item{i}", f"Question {i}?", "bitflip epsilon=0.05"]
                       for i in range(questions))],
                    [["list_name", "name", "label"], ["yn", "no", "No"], ["yn", "yes", "Yes"]],
                    [["form_title", "form_id", "epsilon_budget"], ["Long", "long", str(0.05 * questions + 1)]])


def _import_rolled_back(data: bytes) -> None:
    with transaction.atomic():
        imported = importing.import_form(BytesIO(data))
        if imported.survey.questions.count() == 0:
            raise CommandError("nothing imported")
        transaction.set_rollback(True)


class Command(BaseCommand):
    help = "Time the import of XLSForms of several sizes, on a scratch database."
    requires_system_checks = []  # nothing may open the configured database first

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="50,200,800")
        parser.add_argument("--repeat", type=int, default=3, help="Timed imports per size; the median is shown.")
        parser.add_argument("--db", help="The scratch database, which must not exist.")

    def handle(self, *args: Any, sizes: str, repeat: int, db: str | None, **options: Any) -> None:
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self.stdout.write(f"{connection.display_name}: medians of {repeat} (wall s, cpu s), after one warm-up")
            for size in _sizes(sizes):
                wall, cpu = _median(partial(_import_rolled_back, form(size)), repeat)
                self.stdout.write(f"{size:>5} questions  {wall:6.3f} s ({cpu:.3f})  load {os.getloadavg()[0]:.1f}")
        finally:
            scratch.remove(False)


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "xlsform_bench", *sys.argv[1:]])

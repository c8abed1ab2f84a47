"""Benchmark: synthetic.csv (surveys.aggregation.synthetic.respondents) of a survey of 30 questions of every kind at
10^6
responses, made as the app makes it: through the prepared-export path, in the background (issue 43's bar: within
a minute).

    python bench/synthetic_export_bench.py                        # 30 questions, 10^6 responses
    python bench/synthetic_export_bench.py --n 2000 --questions 10
    DATABASE_URL=postgres://... python bench/synthetic_export_bench.py   # the same on PostgreSQL

A scratch database (bench/scratch.py: never the configured one, removed afterwards unless --keep), filled as
bench/results_bench.py fills (raw load, indexes rebuilt), with answers that depend on one another through a shared
normal factor, each randomized by its question's mechanism and stored as the app stores it. Then synthetic.csv is
requested as the dashboard's link does (`prepared.request`, settings.EXPORT_BACKGROUND on: a thread of this process
prepares it) and waited for: the seconds from the request to the ready file, and this process's CPU seconds (on
PostgreSQL with the server's). Then, outside the export, each step alone: reading the reports' columns, the fit and
the draw, the quality report, and the CSV text. Not a test: it prints figures.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.management.base import BaseCommand, CommandError, CommandParser  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from export_bench import _cpu, _server_pid  # noqa: E402
from scratch import Scratch, scratch_for  # noqa: E402

from surveys.aggregation.exports import prepared  # noqa: E402
from surveys.aggregation.models import MarginShare, PopulationMargin, PreparedExport  # noqa: E402
from surveys.aggregation.synthetic import respondents as synthetic  # noqa: E402
from surveys.collection import answer_rows, builder, plan, report_columns  # noqa: E402
from surveys.collection.builder import QuestionSpec  # noqa: E402
from surveys.collection.models import Response, Survey  # noqa: E402
from surveys.collection.models.keys import KEY_BITS  # noqa: E402
from surveys.collection.plan import PlannedQuestion  # noqa: E402

SLUG = "synthetic-bench"
BATCH = 20_000  # responses per batch
RESPONSE_COLUMNS = ("id", "survey_id", "mechanism_version", "submitted_on", "submission_key", "answers")
REPORT_COLUMNS = ("id", "response_id", "question_id", "value")
SCALE = ("0", "10", "1")
KINDS: list[dict[str, Any]] = [  # QuestionSpec's arguments, in turn
    {"mechanism": "qrr", "q": "0.5"},
    {"mechanism": "bitflip", "epsilon": 1.5},
    {"mechanism": "krr", "epsilon": 1.0, "options": ["a", "b", "c", "d"]},
    {"mechanism": "sue", "epsilon": 2.0, "options": ["a", "b", "c", "d"]},
    {"mechanism": "oue", "epsilon": 2.0, "options": ["a", "b", "c", "d", "e"]},
    {"mechanism": "direct", "options": ["a", "b", "c"]},
    {"mechanism": "multiselect", "epsilon": 2.0, "kind": "multi_select", "options": ["x", "y", "z"]},
    {"mechanism": "onebit", "epsilon": 1.0, "kind": "numeric", "scale": SCALE},
    {"mechanism": "dlaplace", "epsilon": 1.0, "kind": "numeric", "scale": SCALE},
    {"mechanism": "krr", "epsilon": 2.0, "options": ["a", "b", "c", "d", "e", "f"]},
]


class Command(BaseCommand):
    help = "Time synthetic.csv of a survey through the prepared-export path, on a scratch SQLite or PostgreSQL."
    requires_system_checks = []  # nothing may open the configured database first

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--n", type=int, default=10**6, help="Responses (default 10^6).")
        parser.add_argument("--questions", type=int, default=30, help="Questions, the kinds above in turn.")
        parser.add_argument("--db", help="The scratch database, which must not exist.")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--reuse", help="A database an earlier --keep kept: time its survey again, no fill (it "
                                            "is left as it is).")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--margins", action="store_true", help="Weighted: population margins entered for the "
                                                                   "direct questions first.")

    def handle(self, *args: Any, n: int, questions: int, db: str | None, keep: bool, seed: int, reuse: str | None,
               margins: bool, **options: Any) -> None:
        self.margins = margins
        if n < 1 or questions < 1:
            raise CommandError("--n and --questions must be at least 1")
        if reuse:
            connection.close()
            connection.settings_dict["NAME"] = reuse
            survey = Survey.objects.get(slug=SLUG)
            self.stdout.write(f"Reused database: {reuse}")
            self._timed(survey, Response.objects.filter(survey=survey).count())
            return
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, n, questions, np.random.default_rng(seed))
        finally:
            scratch.remove(keep)
            if keep and scratch.created:
                self.stdout.write(f"Kept {scratch.name}")

    def _run(self, scratch: Scratch, n: int, count: int, rng: np.random.Generator) -> None:
        survey = builder.create_survey(SLUG, "Synthetic bench", _questions(count), status=Survey.Status.OPEN,
                                       epsilon_budget=3.0 * count)
        started = time.perf_counter()
        _fill(scratch, survey, n, rng)
        self.stdout.write(f"{count} questions, {n:,} responses filled in {time.perf_counter() - started:.1f} s")
        self._timed(survey, n)

    def _timed(self, survey: Survey, n: int) -> None:
        if self.margins:
            entered = _margins(survey)
            self.stdout.write(f"weighted: population margins of questions {', '.join(map(str, entered))}")
        seconds, cpu, export = _prepared(survey)
        weights = json.loads(export.codebook)["export"]["synthetic"]["weights"]
        if self.margins and not (weights or {}).get("weighted"):
            raise CommandError(f"the rows are not weighted: {weights}")
        if export.status != PreparedExport.Status.READY or export.rows != n:
            raise CommandError(f"synthetic.csv came out {export.status} with {export.rows} rows")
        self.stdout.write(f"{connection.display_name} synthetic.csv through the background preparation: "
                          f"{seconds:.1f} s (cpu {cpu:.1f} s; goal: 60 s), {(export.bytes or 0) / 2**20:.1f} MiB, "
                          f"{export.rows:,} rows")
        self._steps(survey)

    def _steps(self, survey: Survey) -> None:
        """Each step of the export alone, to see where the time goes: wall-clock and CPU seconds (this process's and,
        on PostgreSQL, its server process's)."""
        current = plan.of(survey)
        steps: dict[str, tuple[float, float]] = {}
        columns = _timed(steps, "read the reports", lambda: report_columns.aligned([q.id for q in current]))
        del columns
        data = _timed(steps, "read, fit, draw and state the quality",
                      lambda: synthetic.synthetic_data(survey, current))
        _timed(steps, "CSV text", lambda: sum(len(piece) for piece in synthetic.csv_text(data)))
        self.stdout.write("steps alone: " + ", ".join(f"{name} {seconds:.1f} s (cpu {cpu:.1f} s)"
                                                      for name, (seconds, cpu) in steps.items()))
        self.stdout.write(f"quality: largest difference {data.quality.largest:.2f} standard errors, "
                          f"{len(data.quality.warnings)} warnings")


def _questions(count: int) -> list[QuestionSpec]:
    return [QuestionSpec(f"Question {order}", **KINDS[(order - 1) % len(KINDS)]) for order in range(1, count + 1)]


def _margins(survey: Survey) -> list[int]:
    """Population margins for the direct questions (shares unlike the sample's), unless entered already."""
    entered = []
    for question in survey.questions.filter(mechanism_name="direct").order_by("order"):
        if not PopulationMargin.objects.filter(question=question).exists():
            margin = PopulationMargin.objects.create(question=question, source="bench")
            options = list(question.ordered_options())
            shares = np.arange(1, len(options) + 1) / sum(range(1, len(options) + 1))
            for option, share in zip(options, shares, strict=True):
                MarginShare.objects.create(margin=margin, option=option, share=round(float(share), 6))
        entered.append(question.order)
    return entered


def _truth(question: PlannedQuestion, score: npt.NDArray[np.float64]) -> npt.NDArray[Any]:
    """True answers rising with the score, as the question's mechanism takes them."""
    rank = np.argsort(np.argsort(score)) / score.size
    mechanism = question.mechanism
    if mechanism.name == "multiselect":
        return (rank[:, None] > np.array([0.3, 0.5, 0.7])[None, :]).astype(np.uint8)
    if question.scale is not None:
        return np.minimum((rank * (question.scale.steps + 1)).astype(np.int64), question.scale.steps)
    return np.minimum((rank * mechanism.k).astype(np.int64), mechanism.k - 1)


def _fill(scratch: Scratch, survey: Survey, count: int, rng: np.random.Generator) -> None:
    """`count` responses, one report of every question each, as results_bench's raw load writes them."""
    current = plan.of(survey)
    with scratch.loading() as cursor:
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            factor = rng.normal(size=size)
            columns = [q.mechanism.encode_many(q.mechanism.randomize(_truth(q, factor + rng.normal(size=size)), rng))
                       .tolist() for q in current]
            raw = rng.bytes(32 * size).hex()
            ids = sorted(raw[64 * i:64 * i + 32] for i in range(size))
            keys = [raw[64 * i + 32:64 * i + 64] for i in range(size)]
            answers = [answer_rows.joined(row) for row in zip(*columns, strict=True)]
            scratch.write(cursor, "collection_response", RESPONSE_COLUMNS,
                          [(rid, survey.pk, current.version, "2026-01-01", key, text)
                           for rid, key, text in zip(ids, keys, answers, strict=True)])
            report_keys = iter((rng.integers(0, 1 << KEY_BITS, size * len(current)) | 1 << KEY_BITS).tolist())
            scratch.write(cursor, "collection_report", REPORT_COLUMNS,
                          ((next(report_keys), rid, q.id, values[i]) for i, rid in enumerate(ids)
                           for q, values in zip(current, columns, strict=True)))


def _prepared(survey: Survey) -> tuple[float, float, PreparedExport]:
    """Seconds and CPU seconds from the request of synthetic.csv to its ready file, prepared in the background."""
    with tempfile.TemporaryDirectory() as folder, override_settings(EXPORT_BACKGROUND=True, EXPORT_WAIT=0,
                                                                    EXPORT_DIR=Path(folder)):
        connection.ensure_connection()
        server = _server_pid()
        started, cpu = time.perf_counter(), _cpu(server)
        export = prepared.request(survey, "syn")
        if export is None:
            raise CommandError("the export was removed while it was prepared")
        while export.status == PreparedExport.Status.PREPARING:
            time.sleep(0.2)
            export.refresh_from_db()
        # This process's CPU seconds count the background thread's; on PostgreSQL its connection's server process
        # is not this one, so the server's share is not counted here (the steps below count it).
        return time.perf_counter() - started, _cpu(server) - cpu, export


def _timed(steps: dict[str, tuple[float, float]], name: str, call: Callable[[], Any]) -> Any:
    connection.ensure_connection()
    server = _server_pid()
    started, cpu = time.perf_counter(), _cpu(server)
    found = call()
    steps[name] = time.perf_counter() - started, _cpu(server) - cpu
    return found


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "synthetic_export_bench", *sys.argv[1:]])

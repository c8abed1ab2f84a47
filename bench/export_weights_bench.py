"""Benchmark: what the weight column costs the report exports (surveys.aggregation.exports.weights), and the
dashboard's weights (surveys.aggregation.weighting.weights.weights) beside it.

    python bench/export_weights_bench.py                      # 10^4 and 10^5 responses
    python bench/export_weights_bench.py --sizes 10000,1000000

A scratch database (bench/scratch.py, removed afterwards) and a 10-question survey: 2 direct questions (age band,
3 options; region, 2 options) and the first 8 of bench/results_bench.py's randomized ones, filled as that bench
fills. Per size, reports.csv prepared through the Django test client, without population margins and then with
both margins entered: wall-clock and CPU seconds (best of --repeat) and the peak of Python's traced allocations
(tracemalloc); then the weights alone, as the export rakes them (`export_weights.column`) and as the dashboard
does (`weighting.weights`), their traced peaks and peak bytes per response.
"""

from __future__ import annotations

import os
import sys
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
from django.urls import reverse  # noqa: E402
from export_bench import _get  # noqa: E402
from results_bench import _client, _fill, _sizes, questions  # noqa: E402
from scratch import scratch_for  # noqa: E402

from surveys.aggregation.exports import weights as export_weights  # noqa: E402
from surveys.aggregation.models import MarginShare, PopulationMargin  # noqa: E402
from surveys.aggregation.weighting import weights as weighting  # noqa: E402
from surveys.collection import builder, plan  # noqa: E402
from surveys.collection.builder import QuestionSpec  # noqa: E402
from surveys.collection.models import Survey  # noqa: E402

MIB = 1024 * 1024
MARGINS = {1: [0.3, 0.4, 0.3], 2: [0.45, 0.55]}  # by question order: population shares (the sample differs)


class Command(BaseCommand):
    help = "The report export's time and memory with and without a weight column, and the weights' own peaks."
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="10000,100000")
        parser.add_argument("--repeat", type=int, default=2)
        parser.add_argument("--db", help="The scratch database, which must not exist.")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, sizes: str, repeat: int, db: str | None, seed: int, **options: Any) -> None:
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, _sizes(sizes), repeat, np.random.default_rng(seed))
        finally:
            scratch.remove(False)

    def _run(self, scratch: Any, sizes: list[int], repeat: int, rng: np.random.Generator) -> None:
        survey = builder.create_survey("bench", "Benchmark", [
            QuestionSpec("Age band?", "direct", options=["18-34", "35-54", "55+"]),
            QuestionSpec("Region?", "direct", options=["North", "South"]),
            *questions(8)], status=Survey.Status.OPEN, epsilon_budget=20.0)
        client, url = _client(), reverse("aggregation:export-reports-csv", args=[survey.slug])
        have = 0
        self.stdout.write(f"{'responses':>10} {'reports.csv':>14} {'seconds':>8} {'cpu s':>7} {'peak MiB':>9}")
        for size in sizes:
            _fill(scratch, survey, size - have, rng)
            have = size
            PopulationMargin.objects.filter(question__survey=survey).delete()
            for margined in (False, True):
                if margined:
                    _enter(survey)
                _get(client, url)  # warm up
                seconds, cpu = min(_timed(client, url) for _ in range(repeat))
                peak = _traced(lambda: _get(client, url))
                self.stdout.write(f"{size:>10,} {'with weight' if margined else 'without':>14} {seconds:>8.2f} "
                                  f"{cpu:>7.2f} {peak / MIB:>9.2f}")
            current = plan.of(survey)
            export = _traced(lambda current=current: export_weights.column(survey, current, list(current)))
            dashboard = _traced(lambda current=current: weighting.weights(survey, {q.id: q for q in current}))
            self.stdout.write(f"{size:>10,} weights alone: the export's {export / MIB:.2f} MiB ({export / size:.0f} "
                              f"bytes per response), the dashboard's {dashboard / MIB:.2f} MiB ({dashboard / size:.0f} "
                              f"bytes per response)")


def _enter(survey: Survey) -> None:
    for order, shares in MARGINS.items():
        question = survey.questions.get(order=order)
        margin = PopulationMargin.objects.create(question=question, source="bench")
        for option, share in zip(question.ordered_options(), shares, strict=True):
            MarginShare.objects.create(margin=margin, option=option, share=share)


def _timed(client: Any, url: str) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    _get(client, url)
    return time.perf_counter() - started, time.process_time() - cpu


def _traced(call: Any) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "export_weights_bench", *sys.argv[1:]])

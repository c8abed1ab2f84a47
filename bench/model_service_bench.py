"""Benchmark: a model of a randomized question on 10 direct covariates, through the app, as the survey grows.

    python bench/model_service_bench.py                          # 10^4 and 10^5 responses
    python bench/model_service_bench.py --sizes 1000000 --repeat 3
    DATABASE_URL=postgres://... python bench/model_service_bench.py   # the same on PostgreSQL

A scratch database (bench/scratch.py, as bench/results_bench.py: never the configured one, removed
afterwards unless --keep) holds a survey of one q-RR question and 10 direct ones (8 choices of 3 options, 2
numbers on 18..90), filled by bench/results_bench.py's loader. Per size it prints the medians (wall and this
process's CPU) of the whole service (`modelling.fit`: the stored reports of the 11 questions read, aligned,
the design matrix built and the channel logistic fit) and of the fit alone (`ldp.logistic.fit` on a matrix of
the same shape), and of reading the rows alone (the grouped query and its array); then the ratios between
the sizes. Target (issue 26): under 5 s at 10^6 responses. Not a test.
"""

from __future__ import annotations

import os
import sys
from functools import partial
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
from results_bench import _fill, _median, _sizes  # noqa: E402
from scratch import Scratch, scratch_for  # noqa: E402

from ldp import logistic  # noqa: E402
from surveys.aggregation import model_questions, modelling  # noqa: E402
from surveys.aggregation.model_params import ModelQuery  # noqa: E402
from surveys.collection import builder, plan  # noqa: E402
from surveys.collection.builder import QuestionSpec  # noqa: E402
from surveys.collection.models import Survey  # noqa: E402

QUESTIONS = [QuestionSpec("Outcome?", "qrr", q="0.5"),
             *(QuestionSpec(f"Choice {j}?", "direct", options=["A", "B", "C"]) for j in range(8)),
             *(QuestionSpec(f"Number {j}?", "direct_number", kind="numeric", scale=("18", "90", "1"),
                            options=["18+", "50+"], edges=["18", "50"]) for j in range(2))]


class Command(BaseCommand):
    help = "Time a model on 10 direct covariates at several survey sizes, on a scratch SQLite or PostgreSQL database."
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="10000,100000")
        parser.add_argument("--repeat", type=int, default=3, help="Timed calls per size; the median is shown.")
        parser.add_argument("--db", help="The scratch database, which must not exist (default: a temp name).")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, sizes: str, repeat: int, db: str | None, keep: bool, seed: int,
               **options: Any) -> None:
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, _sizes(sizes), repeat, np.random.default_rng(seed))
        finally:
            scratch.remove(keep)

    def _run(self, scratch: Scratch, sizes: list[int], repeat: int, rng: np.random.Generator) -> None:
        survey = builder.create_survey("bench", "Benchmark", QUESTIONS, status=Survey.Status.CLOSED,
                                       epsilon_budget=5.0)
        current = plan.of(survey)
        ids = [q.id for q in current]
        query = ModelQuery(outcome=ids[0], covariates=tuple(ids[1:]), margin=0.5)
        self.stdout.write("Medians of the wall-clock time and of this process's CPU time (the machine is shared).")
        self.stdout.write(f"{'responses':>11} {'terms':>6} {'service s':>10} {'(cpu)':>8} {'fit s':>8} {'(cpu)':>8}"
                          f" {'reading s':>10} {'(cpu)':>8} {'load':>6}")
        have, rows = 0, []
        for size in sizes:
            _fill(scratch, survey, size - have, rng)
            have = size
            found = modelling.fit(survey, query)
            x, y = _matrix(current, size)
            service = _median(lambda: modelling.fit(survey, query), repeat)
            fit = _median(partial(logistic.fit, y, x, 0.75, 0.25), repeat)
            reading = _median(partial(modelling._complete, list(ids)), repeat)
            rows.append((size, service, fit))
            self.stdout.write(f"{size:>11,} {len(found.terms):>6} {service[0]:>10.2f} {service[1]:>8.2f}"
                              f" {fit[0]:>8.2f} {fit[1]:>8.2f} {reading[0]:>10.2f} {reading[1]:>8.2f}"
                              f" {os.getloadavg()[0]:>6.2f}")
        if len(rows) > 1:
            (small, s0, f0), (large, s1, f1) = rows[0], rows[-1]
            self.stdout.write(f"{connection.display_name} ratio {large:,} / {small:,} responses: service "
                              f"{s1[0] / s0[0]:,.1f}x, fit {f1[0] / f0[0]:,.1f}x")


def _matrix(current: plan.SurveyPlan, size: int) -> tuple[np.ndarray, np.ndarray]:
    """A design of the same shape as the service's (random: the fit's time depends on its size, not its values)."""
    rng = np.random.default_rng(1)
    columns = [np.ones(size)]
    for q in current.questions[1:]:
        if model_questions.covariate_numeric(q):
            columns.append(rng.integers(18, 91, size).astype(float))
        else:
            codes = rng.integers(0, 3, size)
            columns += [(codes == 1).astype(float), (codes == 2).astype(float)]
    x = np.column_stack(columns)
    y = (rng.random(size) < 0.4).astype(float)
    return x, y


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "model_service_bench", *sys.argv[1:]])

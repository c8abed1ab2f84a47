"""Benchmark: weighted figures against unweighted ones as the responses grow.

    python bench/weighted_bench.py                                  # 10^5 and 10^6 responses
    python bench/weighted_bench.py --sizes 1000,100000 --repeat 3
    DATABASE_URL=postgres://... python bench/weighted_bench.py       # the same on PostgreSQL

A survey of --questions randomized questions (bench/results_bench.py's mechanisms in turn, default 20) and two
direct questions with population margins (a region of 3, a sex of 2), filled as results_bench fills (its scratch
database: never the configured one, removed afterwards unless --keep). Per size it prints the median wall-clock
time (and this process's CPU time) of, unweighted and weighted in the same run: the dashboard, the estimates
API, the break-down by the first randomized question on the dashboard, and the cross-tab API of the first two
randomized questions, with the ratio weighted / unweighted. The weighted figures read running counts of every
question's stored values by the margins' cells (surveys/collection/cell_tallies.py), counted from the reports by
the first weighted request (timed apart: "the first"); a weighted cross-tab reads its two questions' answers. Each
line carries the load average: the machine is shared, and the ratios, measured in one run, are what to compare.
"""

from __future__ import annotations

import os
import sys
import time
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
from django.test import Client, override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402
from results_bench import _client, _fill, _median, _sizes, questions  # noqa: E402
from scratch import Scratch, scratch_for  # noqa: E402

from surveys.aggregation.models import MarginShare, PopulationMargin  # noqa: E402
from surveys.collection import arrival_order, builder, plan, tallies  # noqa: E402
from surveys.collection.builder import QuestionSpec  # noqa: E402
from surveys.collection.models import Survey  # noqa: E402

MARGINS = (("Region", ("North", "South", "East"), (0.2, 0.3, 0.5)), ("Sex", ("Female", "Male"), (0.52, 0.48)))


class Command(BaseCommand):
    help = "Time weighted against unweighted figures at several survey sizes, on a scratch database."
    requires_system_checks = []  # nothing may open the configured database first

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="100000,1000000")
        parser.add_argument("--repeat", type=int, default=3, help="Timed calls per figure; the median is shown.")
        parser.add_argument("--questions", type=int, default=20, help="Randomized questions (default 20).")
        parser.add_argument("--db", help="The scratch database, which must not exist.")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, sizes: str, repeat: int, questions: int, db: str | None, keep: bool, seed: int,
               **options: Any) -> None:
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, _sizes(sizes), repeat, np.random.default_rng(seed), questions)
        finally:
            scratch.remove(keep)

    def _run(self, scratch: Scratch, sizes: list[int], repeat: int, rng: np.random.Generator, count: int) -> None:
        survey, client = _survey(count), _client()
        randomized = [q.id for q in plan.of(survey) if q.mechanism.randomized]
        slug = [survey.slug]
        figures = {
            "dashboard": reverse("aggregation:dashboard", args=slug),
            "estimates API": reverse("aggregation:api-estimates", args=slug),
            "break-down": reverse("aggregation:dashboard", args=slug) + f"?by={randomized[0]}",
            "cross-tab API": reverse("aggregation:api-crosstab", args=slug)
            + f"?a={randomized[0]}&b={randomized[1]}",
        }
        have = 0
        self.stdout.write(f"{connection.display_name}: medians of {repeat} (wall s, cpu s), after one warm-up")
        for size in sizes:
            _fill(scratch, survey, size - have, rng)
            have = size
            tallies.rebuild(survey)
            arrival_order.rewrite_in_key_order()
            for name, url in figures.items():
                plain = _median(partial(_get, client, url, False), repeat)
                started = time.perf_counter()
                _get(client, url, True)  # the first weighted request counts the cells from the reports (watches)
                first = time.perf_counter() - started
                weighted = _median(partial(_get, client, url, True), repeat)
                self.stdout.write(
                    f"{size:>9,} {name:<14} unweighted {plain[0]:6.3f} s ({plain[1]:6.3f}) weighted "
                    f"{weighted[0]:6.3f} s ({weighted[1]:6.3f})  ratio {weighted[0] / plain[0]:5.2f}x  "
                    f"the first {first:6.3f} s  "
                    f"load {os.getloadavg()[0]:.1f}")


def _survey(count: int) -> Survey:
    """`count` randomized questions, then the two direct margin questions, their margins entered."""
    specs = [*questions(count), *(QuestionSpec(name, "direct", options=labels) for name, labels, _ in MARGINS)]
    survey = builder.create_survey("weighted-bench", "Weighted benchmark", specs, status=Survey.Status.OPEN,
                                   epsilon_budget=2 * count)
    for question, (_, _, shares) in zip(survey.ordered_questions()[count:], MARGINS, strict=True):
        margin = PopulationMargin.objects.create(question=question, source="Benchmark")
        for option, share in zip(question.ordered_options(), shares, strict=True):
            MarginShare.objects.create(margin=margin, option=option, share=share)
    return survey


def _get(client: Client, url: str, weighted: bool) -> None:
    joined = url + ("&" if "?" in url else "?") + ("weighted=on" if weighted else "")
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        response = client.get(joined)
    if response.status_code != 200:
        raise CommandError(f"{joined} answered {response.status_code}: {response.content[:300]!r}")


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "weighted_bench", *sys.argv[1:]])

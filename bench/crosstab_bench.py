"""Benchmark: how the cross-tab of two questions grows with the number of responses.

    python bench/crosstab_bench.py                      # 10^3 and 10^6 responses
    python bench/crosstab_bench.py --sizes 1000,100000 --repeat 3 --pairs 1-2,5-8
    DATABASE_URL=postgres://... python bench/crosstab_bench.py   # the same on PostgreSQL

The same scratch database and the same 10-question survey as bench/results_bench.py (its
fill, on bench/scratch.py: never the configured database, removed afterwards unless --keep).
Per size and pair of questions (default: 1 x 2, two yes/no questions, and 5 x 8, k-RR with 4
options x OUE with 5) it prints the median time of the grouped self-join alone
(crosstab.pair_counts), of the whole service (the counts plus every estimate) and of
GET /api/v1/surveys/<slug>/crosstab/?a=&b=, then the ratio between the largest and the smallest
size, naming the database engine. It checks that every response was counted once per pair;
--explain prints the engine's query plan of the self-join.
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
from django.urls import reverse  # noqa: E402
from results_bench import _client, _fill, _get, _median, _sizes, _survey  # noqa: E402
from scratch import scratch_for  # noqa: E402

from surveys.aggregation import crosstab  # noqa: E402
from surveys.aggregation.params import ResultOptions  # noqa: E402
from surveys.collection import plan  # noqa: E402
from surveys.collection.models import Survey  # noqa: E402


def _pairs(text: str) -> list[tuple[int, int]]:
    try:
        pairs = [tuple(int(x) for x in part.split("-")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError("--pairs must look like 1-2,5-8 (question orders)") from None
    if not pairs or any(len(p) != 2 or p[0] == p[1] or not all(1 <= x <= 10 for x in p) for p in pairs):
        raise CommandError("--pairs must name two different questions of 1 to 10 each, e.g. 1-2,5-8")
    return [(p[0], p[1]) for p in pairs]


class Command(BaseCommand):
    help = "Time the cross-tab of two questions at several survey sizes, on a scratch SQLite or PostgreSQL database."
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="1000,1000000")
        parser.add_argument("--repeat", type=int, default=5, help="Timed calls per size; the median is shown.")
        parser.add_argument("--pairs", default="1-2,5-8", help="Question orders A-B, comma-separated.")
        parser.add_argument("--db", help="The scratch database, which must not exist.")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--explain", action="store_true", help="Print the query plan at each size.")

    def handle(self, *args: Any, sizes: str, repeat: int, pairs: str, db: str | None, keep: bool, seed: int,
               explain: bool, **options: Any) -> None:
        wanted, chosen = _sizes(sizes), _pairs(pairs)
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, wanted, chosen, repeat, np.random.default_rng(seed), explain)
        finally:
            scratch.remove(keep)
            if keep and scratch.created:
                self.stdout.write(f"Kept {scratch.name}")

    def _run(self, scratch: Any, sizes: list[int], pairs: list[tuple[int, int]], repeat: int,
             rng: np.random.Generator, explain: bool) -> None:
        survey, client = _survey(), _client()
        questions = {q.order: q for q in plan.of(survey)}
        timings: dict[tuple[int, int], list[tuple[int, float, float, float]]] = {pair: [] for pair in pairs}
        have = 0
        self.stdout.write("Medians of the wall-clock time.")
        self.stdout.write(f"{'responses':>11} {'pair':>6} {'fill s':>8} {'query ms':>10} {'service ms':>11}"
                          f" {'endpoint ms':>12}")
        for size in sizes:
            started = time.perf_counter()
            _fill(scratch, survey, size - have, rng)
            have, filled = size, time.perf_counter() - started
            for a, b in pairs:
                qa, qb = questions[a], questions[b]
                counted = crosstab.pair_counts(qa, qb)
                if counted is None or counted.n != size:
                    raise CommandError(f"the cross-tab of {a} and {b} counted {counted and counted.n} of {size}")
                if explain:
                    self._explain(qa.id, qb.id)
                options = ResultOptions(a=qa.id, b=qb.id)
                url = reverse("aggregation:api-crosstab", args=[survey.slug]) + f"?a={qa.id}&b={qb.id}"
                query = _median(partial(crosstab.pair_counts, qa, qb), repeat)[0]
                service = _median(partial(_all_of, survey, options), repeat)[0]
                endpoint = _median(partial(_get, client, url), repeat)[0]
                timings[(a, b)].append((size, query, service, endpoint))
                self.stdout.write(f"{size:>11,} {f'{a}x{b}':>6} {filled:>8.1f} {query * 1e3:>10.2f}"
                                  f" {service * 1e3:>11.2f} {endpoint * 1e3:>12.2f}")
        for (a, b), rows in timings.items():
            if len(rows) > 1:
                (small, q0, s0, e0), (large, q1, s1, e1) = rows[0], rows[-1]
                self.stdout.write(
                    f"{connection.display_name} ratio {large:,} / {small:,} responses, questions {a} x {b}: "
                    f"query {q1 / q0:,.1f}x, service {s1 / s0:,.1f}x, endpoint {e1 / e0:,.1f}x "
                    f"({e1:.2f} s at the largest size).")

    def _explain(self, a: int, b: int) -> None:
        prefix = "EXPLAIN QUERY PLAN" if connection.vendor == "sqlite" else "EXPLAIN"
        sql, params = crosstab.pair_counts_sql(a, b)
        with connection.cursor() as cursor:
            cursor.execute(f"{prefix} {sql}", params)
            for row in cursor.fetchall():
                self.stdout.write("    " + " ".join(str(cell) for cell in row))


def _all_of(survey: Survey, options: ResultOptions) -> None:
    """The service with every number the API shows (it computes them on first use)."""
    table = crosstab.crosstab(survey, options)
    _ = table.joint, table.b_given_a, table.a_given_b, table.relation, table.cells


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "crosstab_bench", *sys.argv[1:]])

"""Benchmark: a model of a randomized question on 10 covariate terms, through the app, weighted and not.

    python bench/model_service_bench.py                          # 10^4 and 10^6 responses
    python bench/model_service_bench.py --sizes 1000000 --repeat 3
    DATABASE_URL=$(bash .ci/postgres) python bench/model_service_bench.py   # the same on PostgreSQL

A scratch database (bench/scratch.py, as bench/results_bench.py: never the configured one, removed afterwards
unless --keep) holds a 10-question survey: a q-RR outcome (q = 0.5) answered from a planted logistic model of
9 direct questions, region (3 options), age in years (a number, 18..90) and 7 yes/no ones, sex among them:
10 covariate terms and the intercept. Sex and region have population margins. The responses are bulk
inserted (executemany on SQLite, COPY on PostgreSQL, indexes rebuilt after).

Per size it prints the medians (wall and this process's CPU) of the whole service (`modelling.fit`)
unweighted and weighted, and of its stages: reading the stored reports of the 10 questions (every response
answers all ten, so as per-question columns grouped in numpy, `surveys.collection.report_columns`; the load
writes no tallies, whose n are then all 0 and agree), the raking (the weighted fit's weights), and the fit
alone (`ldp.regression.logistic.fit` on the grouped rows); then the rows, the distinct groups the likelihood is summed
over
(what bounds the fit's cost: a numeric covariate with many values makes many) and the ratios between the sizes.
Target (issue 26): under 5 s at 10^6 responses: measured 1.3 to 1.5 s on SQLite, 2.4 to 3.1 s on PostgreSQL
(one run of three 4.6 to 5.2 s; docs/statistics.md). Not a test.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.management.base import BaseCommand, CommandError, CommandParser  # noqa: E402
from django.db import connection  # noqa: E402
from results_bench import BATCH, REPORT_COLUMNS, RESPONSE_COLUMNS, _median, _sizes  # noqa: E402
from scratch import Scratch, scratch_for  # noqa: E402

from ldp.regression import logistic  # noqa: E402
from surveys.aggregation.models import MarginShare, PopulationMargin  # noqa: E402
from surveys.aggregation.regression import fitting as modelling  # noqa: E402
from surveys.aggregation.regression import questions as model_questions  # noqa: E402
from surveys.aggregation.regression import rows as model_rows  # noqa: E402
from surveys.aggregation.regression.params import ModelQuery  # noqa: E402
from surveys.aggregation.weighting import weights as weighting  # noqa: E402
from surveys.collection import builder, plan  # noqa: E402
from surveys.collection.builder import QuestionSpec  # noqa: E402
from surveys.collection.models import Survey  # noqa: E402
from surveys.collection.models.keys import KEY_BITS  # noqa: E402

T = TypeVar("T")
YES_NO = ["No", "Yes"]
QUESTIONS = [QuestionSpec("Outcome?", "qrr", q="0.5"),
             QuestionSpec("Region?", "direct", options=["North", "South", "West"]),
             QuestionSpec("Age?", "direct_number", kind="numeric", scale=("18", "90", "1"),
                          options=["18+", "50+"], edges=["18", "50"]),
             QuestionSpec("Sex?", "direct", options=["Male", "Female"]),
             *(QuestionSpec(f"Yes or no {j}?", "direct", options=YES_NO) for j in range(1, 7))]
MARGINS = {2: ("0.4", "0.35", "0.25"), 4: ("0.49", "0.51")}  # question order -> population shares
SLOPES = np.array([0.3, -0.4, 0.01, -0.5, 0.2, -0.2, 0.1, -0.1, 0.05, 0.0])  # the planted model's, per term


class Command(BaseCommand):
    help = "Time a model on 10 covariate terms at several survey sizes, on a scratch SQLite or PostgreSQL database."
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="10000,1000000")
        parser.add_argument("--repeat", type=int, default=3, help="Timed calls per size; the median is shown.")
        parser.add_argument("--db", help="The scratch database, which must not exist (default: a temp name).")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, sizes: str, repeat: int, db: str | None, keep: bool, seed: int,
               **options: Any) -> None:
        wanted = _sizes(sizes)
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            self._run(scratch, wanted, repeat, np.random.default_rng(seed))
        finally:
            scratch.remove(keep)
            if keep and scratch.created:
                self.stdout.write(f"Kept {scratch.name}")

    def _run(self, scratch: Scratch, sizes: list[int], repeat: int, rng: np.random.Generator) -> None:
        survey = _survey()
        ids = [q.id for q in plan.of(survey)]
        queries = {"unweighted": ModelQuery(outcome=ids[0], covariates=tuple(ids[1:]), margin=0.5),
                   "weighted": ModelQuery(outcome=ids[0], covariates=tuple(ids[1:]), margin=0.5, weighted=True)}
        self.stdout.write("Medians of the wall-clock time and of this process's CPU time (the machine is shared); "
                          "stages: reading the rows, raking, the fit alone.")
        self.stdout.write(f"{'responses':>11} {'model':>10} {'terms':>5} {'groups':>7} {'service s':>9} {'(cpu)':>6}"
                          f" {'read s':>6} {'rake s':>6} {'fit s':>6} {'fill s':>7} {'load':>5}")
        have, rows = 0, []
        for size in sizes:
            started = time.perf_counter()
            _fill(scratch, survey, size - have, rng)
            filled, have = time.perf_counter() - started, size
            for name, query in queries.items():
                found = modelling.fit(survey, query)
                if found.n != size:
                    raise CommandError(f"the model used {found.n} of {size} responses")
                service = _median(partial(modelling.fit, survey, query), repeat)
                stages = _stages(survey, query)
                rows.append((size, name, service))
                self.stdout.write(
                    f"{size:>11,} {name:>10} {len(found.terms) - 1:>5} {stages['groups']:>7,} {service[0]:>9.2f}"
                    f" {service[1]:>6.2f} {stages['read']:>6.2f} {stages['rake']:>6.2f} {stages['fit']:>6.2f}"
                    f" {filled:>7.1f} {os.getloadavg()[0]:>5.2f}")
        if len(sizes) > 1:
            for name in queries:
                mine = [row for row in rows if row[1] == name]
                (small, _, s0), (large, _, s1) = mine[0], mine[-1]
                self.stdout.write(f"{connection.display_name} {name} ratio {large:,} / {small:,} responses: "
                                  f"service {s1[0] / s0[0]:,.1f}x")


def _stages(survey: Survey, query: ModelQuery) -> dict[str, float]:
    """The service's steps one by one (as `modelling.fit` takes them): the grouped rows read, raked, fitted."""
    questions = {q.id: q for q in plan.of(survey)}
    outcome, _, level = model_questions.outcome(questions, query)
    covariates = model_questions.covariates(questions, query, outcome)
    used = [outcome.id, *(c.question.id for c in covariates)]
    margins = weighting.required_margins(survey) if query.weighted else []
    read, (rows, answering) = _timed(lambda: (
        model_rows.grouped(used + [m.question_id for m in margins if m.question_id not in used]),
        model_rows.answering_any([m.question_id for m in margins]) if margins else 0))
    rake, found = 0.0, None
    if margins:
        rake, found = _timed(lambda: modelling._weights(margins, questions, rows, answering))
    stored = {q: rows.column(q) for q in used}
    x, _ = model_questions.design_matrix(covariates, stored, rows.n)
    y = modelling._binary(outcome, stored[outcome.id], level)
    mechanism = outcome.mechanism
    fit, _ = _timed(lambda: logistic.fit(y, x, mechanism.p, mechanism.q_other, counts=rows.counts,
                                         design=None if found is None else found.design))
    return {"groups": len(rows.counts), "read": read, "rake": rake, "fit": fit}


def _timed(call: Callable[[], T]) -> tuple[float, T]:
    started = time.perf_counter()
    found = call()
    return time.perf_counter() - started, found


def _survey() -> Survey:
    survey = builder.create_survey("bench", "Benchmark", QUESTIONS, status=Survey.Status.CLOSED, epsilon_budget=5.0)
    for question in survey.questions.filter(order__in=MARGINS):
        entered = PopulationMargin.objects.create(question=question, source="Bench")
        MarginShare.objects.bulk_create(MarginShare(margin=entered, option=option, share=share) for option, share
                                        in zip(question.ordered_options(), MARGINS[question.order], strict=True))
    return survey


def _fill(scratch: Scratch, survey: Survey, count: int, rng: np.random.Generator) -> None:
    """Add `count` responses (10 reports each): direct answers drawn at random, the outcome from the planted
    model through its q-RR channel."""
    if count <= 0:
        return
    current = plan.of(survey)
    version, day = current.version, "2026-01-01"
    with scratch.loading() as cursor:
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            raw = rng.bytes(32 * size).hex()
            ids = sorted(raw[64 * i:64 * i + 32] for i in range(size))  # as results_bench: the index grows in order
            keys = [raw[64 * i + 32:64 * i + 64] for i in range(size)]
            scratch.write(cursor, "collection_response", RESPONSE_COLUMNS,
                          [(rid, survey.pk, version, day, key) for rid, key in zip(ids, keys, strict=True)])
            direct = [rng.integers(0, q.mechanism.k, size) for q in current.questions[1:]]
            region, age = direct[0], direct[1] + 18.0
            x = np.column_stack([region == 1, region == 2, age, *direct[2:]]).astype(float)
            truth = (rng.random(size) < 1 / (1 + np.exp(-(x @ SLOPES - 0.8)))).astype(np.int64)
            outcome = current.questions[0].mechanism
            columns = [outcome.encode_many(outcome.randomize(truth, rng)).tolist(),
                       *(q.mechanism.encode_many(values).tolist()
                         for q, values in zip(current.questions[1:], direct, strict=True))]
            report_keys = iter((rng.integers(0, 1 << KEY_BITS, size * len(current)) | 1 << KEY_BITS).tolist())
            scratch.write(cursor, "collection_report", REPORT_COLUMNS,
                          ((next(report_keys), rid, q.id, values[i]) for i, rid in enumerate(ids)
                           for q, values in zip(current, columns, strict=True)))


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "model_service_bench", *sys.argv[1:]])

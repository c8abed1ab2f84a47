"""Benchmark: how the cross-tab of two questions grows with the number of responses.

    python bench/crosstab_bench.py                      # 10^3 and 10^6 responses
    python bench/crosstab_bench.py --sizes 1000,100000 --repeat 3 --pairs 1-2,5-8
    DATABASE_URL=postgres://... python bench/crosstab_bench.py   # the same on PostgreSQL

    python bench/crosstab_bench.py --sizes 1000000 --questions 20 --repeat 3   # issue 23's targets

The same scratch database and the same survey as bench/results_bench.py (10 questions, or --questions N of its
mechanisms in turn; its fill, on bench/scratch.py: never the configured database, removed afterwards unless
--keep). Per size, with no pair of questions watched yet (the raw load bypasses the running counts, so they
are forgotten and the tallies rebuilt), it prints the median time of the dashboard, then per pair of questions
(default: 1 x 2, two yes/no questions, and 5 x 8, k-RR with 4 options x OUE with 5) the grouped self-join
alone (what every ask cost before the pairs' running counts), the count from the reports
(`count_from_reports`: the two questions' columns when every response answers both), the first ask through the
API (counted within the request, or 202 and counted in the background, then the time until whole), and the
later asks: the running counts alone (crosstab.pair_counts), the whole service (the counts plus every
estimate), GET /api/v1/surveys/<slug>/crosstab/?a=&b= and the dashboard with that cross-tab; then the
break-down by question --by (default 5): its first ask (above RELATE_NOW_RESPONSES counted in the background,
which the ask waits for up to pair_counting.WAIT: then also the time until the page shows the whole break-down)
and the later ones, on the dashboard; then a submission's CPU time with no pair watched and with the pairs
above watched, in alternating rounds. Each line carries the load average (the machine is shared). It checks
that every response was counted once per pair; --explain prints the self-join's plan.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
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
from django.db import connection, transaction  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402
from results_bench import QUESTIONS, _client, _fill, _get, _median, _sizes, _survey  # noqa: E402
from scratch import scratch_for  # noqa: E402

from surveys.aggregation.params import ResultOptions  # noqa: E402
from surveys.aggregation.relating import crosstab  # noqa: E402
from surveys.aggregation.results import service as results  # noqa: E402
from surveys.collection import pair_tallies, plan, submission, tallies  # noqa: E402
from surveys.collection.models import PairTally, PairWatch, Survey  # noqa: E402


def _pairs(text: str, questions: int) -> list[tuple[int, int]]:
    try:
        pairs = [tuple(int(x) for x in part.split("-")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError("--pairs must look like 1-2,5-8 (question orders)") from None
    if not pairs or any(len(p) != 2 or p[0] == p[1] or not all(1 <= x <= questions for x in p) for p in pairs):
        raise CommandError(f"--pairs must name two different questions of 1 to {questions} each, e.g. 1-2,5-8")
    return [(p[0], p[1]) for p in pairs]


class Command(BaseCommand):
    help = "Time the cross-tab of two questions at several survey sizes, on a scratch SQLite or PostgreSQL database."
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="1000,1000000")
        parser.add_argument("--repeat", type=int, default=5, help="Timed calls per size; the median is shown.")
        parser.add_argument("--pairs", default="1-2,5-8", help="Question orders A-B, comma-separated.")
        parser.add_argument("--questions", type=int, default=len(QUESTIONS),
                            help=f"Questions in the survey (default {len(QUESTIONS)}; 20 for the break-down's target).")
        parser.add_argument("--by", type=int, default=5, help="The break-down's grouping question (order).")
        parser.add_argument("--db", help="The scratch database, which must not exist.")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--explain", action="store_true", help="Print the query plan at each size.")

    def handle(self, *args: Any, sizes: str, repeat: int, pairs: str, questions: int, by: int, db: str | None,
               keep: bool, seed: int, explain: bool, **options: Any) -> None:
        wanted, chosen = _sizes(sizes), _pairs(pairs, questions)
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        if not 1 <= by <= questions:
            raise CommandError(f"--by must name one of the {questions} questions")
        scratch = scratch_for(connection.vendor)(db)
        try:
            scratch.create()
            self.stdout.write(f"Scratch database ({scratch.describe()}): {scratch.name}")
            call_command("migrate", verbosity=0, interactive=False)
            survey, client = _survey(questions), _client()
            have, rng = 0, np.random.default_rng(seed)
            for size in wanted:
                started = time.perf_counter()
                _fill(scratch, survey, size - have, rng)
                have = size
                self.stdout.write(f"{size:,} responses of {questions} questions filled in "
                                  f"{time.perf_counter() - started:.1f} s")
                forget_pairs(survey)  # the raw load bypassed the running counts: count every pair afresh
                tallies.rebuild(survey)
                time_relating(self.stdout.write, survey, client, chosen, by, repeat, explain)
        finally:
            scratch.remove(keep)
            if keep and scratch.created:
                self.stdout.write(f"Kept {scratch.name}")


def forget_pairs(survey: Survey) -> None:
    """No pair of the survey's questions watched: the next ask of each counts it from the reports."""
    PairTally.objects.filter(question_a__survey=survey).delete()
    PairWatch.objects.filter(question_a__survey=survey).delete()


def time_relating(write: Callable[[str], object], survey: Survey, client: Client, pairs: list[tuple[int, int]],
                  by: int, repeat: int, explain: bool = False) -> None:
    """Print, for the survey as it is (no pair watched yet), the dashboard's time, then per pair the
    first ask (counted from the reports, then watched) and the later ones (read from the running
    counts: the counts alone, the service, the API endpoint, the dashboard with the cross-tab), then
    the break-down by question `by`: its first ask and the later ones. Medians of the wall-clock time
    of `repeat` calls after a warm-up; the load average beside each line (a shared machine)."""
    questions = {q.order: q for q in plan.of(survey)}
    _submissions(survey, SUBMISSIONS // 3)  # warm-up: imports, caches
    n = results.survey_results(survey).responses
    dashboard = reverse("aggregation:dashboard", args=[survey.slug])
    write(f"{connection.display_name}, {n:,} responses of {len(questions)} questions; seconds, wall (this "
          "process's CPU: on SQLite the engine's too)")
    write(f"dashboard (no cross-tab) {_both(_median(partial(_get, client, dashboard), repeat))}   load {_load()}")
    for a, b in pairs:
        qa, qb = questions[a], questions[b]
        if explain:
            _explain(write, qa.id, qb.id)
        join = _median(partial(_self_join, qa.id, qb.id), min(repeat, 3))[0]
        count = _median(partial(pair_tallies.count_from_reports, qa, qb), min(repeat, 3))[0]
        url = reverse("aggregation:api-crosstab", args=[survey.slug]) + f"?a={qa.id}&b={qb.id}"
        first, how = _first_ask(client, url)
        counted = crosstab.pair_counts(qa, qb)
        if n and (counted is None or counted.n != n):
            raise CommandError(f"the cross-tab of {a} and {b} counted {counted and counted.n} of {n}")
        options = ResultOptions(a=qa.id, b=qb.id)
        later = [_median(call, repeat) for call in (
            partial(crosstab.pair_counts, qa, qb), partial(_all_of, survey, options), partial(_get, client, url),
            partial(_get, client, f"{dashboard}?a={qa.id}&b={qb.id}"))]
        write(f"cross-tab {a} x {b}: the self-join {join:.3f}, the count (columns if whole) {count:.3f}, "
              f"first ask (API) {first:.3f} {how}; then counts {_both(later[0])}, "
              f"service {_both(later[1])}, API {_both(later[2])}, dashboard {_both(later[3])}   load {_load()}")
    grouping = questions[by]
    url = f"{dashboard}?by={grouping.id}"
    with override_settings(ALLOWED_HOSTS=["testserver"]):  # the test client's host name
        started = time.perf_counter()
        answer = client.get(url)
        first = time.perf_counter() - started
        counting = answer.status_code == 200 and "Refresh" in answer
        while answer.status_code == 200 and "Refresh" in answer:  # counted in the background: ask until whole
            time.sleep(0.2)
            answer = client.get(url)
        whole = time.perf_counter() - started
    if answer.status_code != 200:
        raise CommandError(f"the break-down answered {answer.status_code}")
    later_by = _median(partial(_get, client, url), repeat)
    write(f"break-down by {by} ({len(questions) - 1} other questions): first ask {first:.3f} (answered "
          f"{'at once, counted in the background' if counting else 'with the tables'}), whole after "
          f"{whole:.3f}; then dashboard {_both(later_by)}   load {_load()}")
    pairs_watched = PairWatch.objects.filter(question_a__survey=survey).count()
    (unwatched, watched), ratios = _alternating(survey)
    write(f"a submission in process (CPU, medians of {ROUNDS} alternating rounds of {SUBMISSIONS}): "
          f"{unwatched * 1e3:.3f} ms with no pair watched, {watched * 1e3:.3f} ms with the {pairs_watched} pairs "
          f"above watched ({watched / unwatched:.2f}x; rounds {' '.join(f'{r:.2f}' for r in ratios)})   "
          f"load {_load()}")


SUBMISSIONS = 150  # per round and phase: a second or two; the rows they add change no figure above
ROUNDS = 4


def _alternating(survey: Survey) -> tuple[tuple[float, float], list[float]]:
    """A submission's CPU time with no pair watched and with the survey's watched pairs, in alternating
    rounds (which goes first alternates too), so that a drift of the machine falls on both: the two medians
    over the rounds, and each round's ratio. The watched pairs are recounted after (the submissions of the
    rounds without them were not counted in them)."""
    watched = PairWatch.objects.filter(question_a__survey=survey)
    watches = [PairWatch(question_a_id=a, question_b_id=b) for a, b in
               watched.values_list("question_a_id", "question_b_id")]

    def watch(on: bool) -> None:
        watched.delete()
        if on:
            PairWatch.objects.bulk_create(watches)

    times: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(ROUNDS):
        for watching in (False, True) if round_ % 2 == 0 else (True, False):
            watch(watching)
            times[watching].append(_submissions(survey, SUBMISSIONS))
    with transaction.atomic():
        watch(True)
        pair_tallies.rebuild(plan.of(survey))
    ratios = [w / u for u, w in zip(times[False], times[True], strict=True)]
    return (statistics.median(times[False]), statistics.median(times[True])), ratios


def _submissions(survey: Survey, count: int) -> float:
    """The median CPU time of one submission through the submission service (random reports)."""
    rng, current = np.random.default_rng(count), plan.of(survey)
    times = []
    for _ in range(count):
        reports = {str(q.id): rng.integers(0, 2, q.mechanism.k).tolist() if q.mechanism.unary
                   else int(rng.integers(q.mechanism.k)) for q in current}
        payload = {"version": current.version, "key": str(uuid.uuid4()), "reports": reports}
        started = time.process_time()
        submission.submit(survey, payload, current)
        times.append(time.process_time() - started)
    return statistics.median(times)


def _both(timed: tuple[float, float]) -> str:
    return f"{timed[0]:.3f} ({timed[1]:.3f})"


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _explain(write: Callable[[str], object], a: int, b: int) -> None:
    prefix = "EXPLAIN QUERY PLAN" if connection.vendor == "sqlite" else "EXPLAIN"
    sql, params = crosstab.pair_counts_sql(a, b)
    with connection.cursor() as cursor:
        cursor.execute(f"{prefix} {sql}", params)
        for row in cursor.fetchall():
            write("    " + " ".join(str(cell) for cell in row))


def _first_ask(client: Client, url: str) -> tuple[float, str]:
    """Seconds until the API first answers the cross-tab, and how: within the request, or 202 (being counted
    in the background, then asked again until whole)."""
    with override_settings(ALLOWED_HOSTS=["testserver"]):  # the test client's host name
        started = time.perf_counter()
        answer = client.get(url)
        first = time.perf_counter() - started
        if answer.status_code == 200:
            return first, "(counted within the request)"
        while answer.status_code == 202:
            time.sleep(0.2)
            answer = client.get(url)
    if answer.status_code != 200:
        raise CommandError(f"the cross-tab endpoint answered {answer.status_code}")
    return first, f"(202, whole after {time.perf_counter() - started:.3f})"


def _self_join(a: int, b: int) -> None:
    """The grouped self-join alone: how a pair was counted before its questions' columns were read."""
    with connection.cursor() as cursor:
        cursor.execute(*crosstab.pair_counts_sql(a, b))
        cursor.fetchall()


def _all_of(survey: Survey, options: ResultOptions) -> None:
    """The service with every number the API shows (it computes them on first use)."""
    table = crosstab.crosstab(survey, options)
    _ = table.joint, table.b_given_a, table.a_given_b, table.relation, table.cells


if __name__ == "__main__":
    Command().run_from_argv([sys.argv[0], "crosstab_bench", *sys.argv[1:]])

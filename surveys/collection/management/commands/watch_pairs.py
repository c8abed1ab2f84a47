"""Start keeping the running counts of pairs of questions ahead of the dashboard.

    python manage.py watch_pairs health --by 3          # every pair of question 3 (its break-down)
    python manage.py watch_pairs health --pair 1-2      # one cross-tab
    python manage.py watch_pairs health --all           # every pair of the survey's questions

The dashboard counts a pair from the reports the first time it is related (then every
submission keeps its counts): at 10^6 responses one to three seconds a pair, so a break-down
by one question of a 20-question survey asked for the first time would outlast a worker's
timeout. Run here, without a timeout, each pair is counted and watched in its own
transaction, which holds submissions back for that pair's count only.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.collection import pair_tallies, plan
from surveys.collection.models import Survey
from surveys.collection.plan import PlannedQuestion


class Command(BaseCommand):
    help = "Count pairs of a survey's questions from the reports and keep their counts from now on."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        chosen = parser.add_mutually_exclusive_group(required=True)
        chosen.add_argument("--by", type=int, help="Every pair of this question (order) with another.")
        chosen.add_argument("--pair", help="Two question orders, e.g. 1-2.")
        chosen.add_argument("--all", action="store_true", help="Every pair of the survey's questions.")

    def handle(self, *args: Any, slug: str, by: int | None, pair: str | None, all: bool, **options: Any) -> None:
        survey = Survey.objects.filter(slug=slug).first()
        if survey is None:
            raise CommandError(f"no such survey: {slug}")
        try:
            current = plan.of(survey)
        except plan.Unavailable as error:
            raise CommandError(f"{slug}: {error.reason}") from None
        questions = {q.order: q for q in current if q.relatable}
        for a, b in _pairs(questions, by, pair, all):
            started = time.perf_counter()
            try:
                pair_tallies.counts(a, b)
            except plan.Unavailable as error:
                raise CommandError(f"{slug}: {error.reason}") from None
            self.stdout.write(f"{slug}: questions {a.order} x {b.order} watched "
                              f"({time.perf_counter() - started:.1f} s)")


def _pairs(questions: dict[int, PlannedQuestion], by: int | None, pair: str | None,
           every: bool) -> list[tuple[PlannedQuestion, PlannedQuestion]]:
    if every:
        return list(itertools.combinations(questions.values(), 2))
    if by is not None:
        if by not in questions:
            raise CommandError(f"--by: no question {by} that relates (numeric means do not)")
        return [(questions[by], q) for order, q in questions.items() if order != by]
    try:
        a, b = (int(x) for x in str(pair).split("-"))
    except ValueError:
        raise CommandError("--pair must be two question orders, e.g. 1-2") from None
    if a == b or a not in questions or b not in questions:
        raise CommandError("--pair must name two different questions that relate")
    return [(questions[a], questions[b])]

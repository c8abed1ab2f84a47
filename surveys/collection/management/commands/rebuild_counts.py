"""Recount the dashboards' tallies from the stored reports.

    python manage.py rebuild_counts                 # every survey
    python manage.py rebuild_counts demo health     # these surveys
    python manage.py rebuild_counts --verify        # only compare; exit 1 on any difference

Needed after anything that writes, changes or deletes reports without going through the submission
or demo services (raw loads, edits, deleted responses); each survey is rewritten in one transaction,
its responses' answers (`answer_rows`) too.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.collection import answer_rows, plan, tallies
from surveys.collection.models import Survey


class Command(BaseCommand):
    help = "Rebuild the running report counts (tallies) from the reports, or --verify they agree."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", help="Surveys to rebuild (default: all).")
        parser.add_argument("--verify", action="store_true",
                            help="Only compare tallies with a recount; print differences, exit 1 if any.")

    def handle(self, *args: Any, slugs: Any, verify: Any, **options: Any) -> None:
        surveys = Survey.objects.order_by("slug")
        if slugs:
            surveys = surveys.filter(slug__in=slugs)
            missing = sorted(set(slugs) - set(surveys.values_list("slug", flat=True)))
            if missing:
                raise CommandError(f"no such survey: {', '.join(missing)}")
        found: list[object] = []
        for survey in surveys:
            try:
                if verify:
                    differences: list[object] = list(tallies.differences(survey))
                    stale = answer_rows.stale(survey.pk, plan.of(survey))
                    if stale:
                        differences.append(f"{survey.slug}: {stale} responses keep other answers than their reports")
                    found += differences
                    for difference in differences:
                        self.stdout.write(str(difference))
                    self.stdout.write(f"{survey.slug}: {'MISMATCH' if differences else 'ok'}")
                else:
                    tallies.rebuild(survey)
                    self.stdout.write(f"{survey.slug}: rebuilt")
            except plan.Unavailable as error:  # counts or configuration that cannot be read
                raise CommandError(f"{survey.slug}: {error.reason}") from None
        if found:
            raise CommandError(f"{len(found)} counts or answers differ from the reports; "
                               "run rebuild_counts to fix them")

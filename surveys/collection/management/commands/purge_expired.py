"""Delete the responses of every survey past its retention period (run daily: docs/operations.md).

    python manage.py purge_expired            # purges, prints one line per survey purged
    python manage.py purge_expired --dry-run  # says what it would purge, removes nothing

Each expired survey is purged in its own transaction with its record in the configuration history
(surveys.collection.retention); a survey not yet expired, or never given a period, is left alone.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from surveys.collection import purge, retention


class Command(BaseCommand):
    help = "Purge the responses and prepared exports of surveys past their retention period."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="Say what would be purged; remove nothing.")

    def handle(self, *args: Any, dry_run: bool, **options: Any) -> None:
        if dry_run:
            for survey in retention.expired():
                self.stdout.write(f"expired on {retention.expires_at(survey):%Y-%m-%d}: {purge.preview(survey).plan()}")
            return
        done = retention.purge_expired()
        for found in done:
            self.stdout.write(f"expired on {found.expired_at:%Y-%m-%d}: {found.purged}")
        self.stdout.write(f"{len(done)} expired survey(s) purged.")

"""Remove prepared exports past their time or made stale, and files no export owns.

    python manage.py prune_exports     # e.g. hourly, from cron or a systemd timer

Removes every prepared export (row and file) that is DJANGO_EXPORT_KEEP_HOURS past being ready (or
failing), that newer responses or a changed survey made stale, or that a newer one of the same
survey and format replaced; preparations abandoned for as long; and files in DJANGO_EXPORT_DIR
named like an export's that no export owns any more (a killed worker's partial file, a deleted
survey's). Export requests remove expired and stale exports too, but only when somebody asks.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from surveys.aggregation.exports import prepared


class Command(BaseCommand):
    help = "Remove prepared exports that are past their time or stale, and orphaned export files."

    def handle(self, *args: Any, **options: Any) -> None:
        exports, files = prepared.prune()
        self.stdout.write(f"Removed {exports} prepared export{'' if exports == 1 else 's'} "
                          f"and {files} orphaned file{'' if files == 1 else 's'}.")

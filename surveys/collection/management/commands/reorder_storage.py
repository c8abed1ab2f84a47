"""Rewrite the stored responses and reports in the order of their random keys.

    python manage.py reorder_storage

PostgreSQL stores new rows in the order they arrive; run this on a schedule (nightly, and when a
survey closes) so that the tables carry no arrival order: see surveys.collection.arrival_order.
It holds submissions while it runs (seconds per million reports). On SQLite it only runs VACUUM:
there the rows are already stored in key order.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from surveys.collection import arrival_order


class Command(BaseCommand):
    help = "Rewrite responses and reports in random-key order (PostgreSQL CLUSTER; VACUUM on SQLite)."

    def handle(self, *args: Any, **options: Any) -> None:
        arrival_order.rewrite_in_key_order()
        self.stdout.write("Responses and reports are stored in random-key order.")

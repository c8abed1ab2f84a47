"""Keeping arrival order out of what is stored.

Random keys (`models.keys`) take it out of the keys, and on SQLite out of the tables' row order (a
report's key is its rowid; the store gives each response a random rowid). PostgreSQL appends new
rows to the heap in the order they arrive whatever their keys, so `rewrite_in_key_order` rewrites
both tables in the order of their random primary keys (CLUSTER), under a lock that holds
submissions for the length of the rewrite; rows arriving afterwards are in arrival order again
until the next run, which is why operations run it on a schedule (`manage.py reorder_storage`).
On SQLite it runs VACUUM, which drops the freed pages that may still hold rows as they were.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper

TABLES = ("collection_response", "collection_report")


def rewrite_in_key_order(using: BaseDatabaseWrapper = connection, tables: tuple[str, ...] = TABLES) -> None:
    if using.vendor == "postgresql":
        with using.cursor() as cursor:
            # Deferred foreign-key checks of this transaction's writes must run first: CLUSTER
            # refuses a table with pending trigger events.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            for table in tables:
                cursor.execute(f"CLUSTER {using.ops.quote_name(table)} USING "
                               f"{using.ops.quote_name(primary_key_index(using, cursor, table))}")
                # VACUUM sets the visibility map, which CLUSTER leaves empty: without it the cross-tab's
                # index-only scans would visit the table for every row. It cannot run in a transaction.
                vacuum = "ANALYZE" if using.in_atomic_block else "VACUUM (ANALYZE)"
                cursor.execute(f"{vacuum} {using.ops.quote_name(table)}")
    elif using.vendor == "sqlite" and not using.in_atomic_block:  # VACUUM cannot run in a transaction
        with using.cursor() as cursor:
            cursor.execute("VACUUM")


def primary_key_index(using: BaseDatabaseWrapper, cursor: Any, table: str) -> str:
    constraints = using.introspection.get_constraints(cursor, table)
    return next(name for name, about in constraints.items() if about["primary_key"])

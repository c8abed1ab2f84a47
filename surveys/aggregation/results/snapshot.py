"""One consistent read of the database: every query inside `snapshot()` sees the same committed state,
so an export's count, codebook and rows describe the same responses, whatever arrives meanwhile.

PostgreSQL: a REPEATABLE READ, READ ONLY transaction (one snapshot, taken at its first query).
SQLite: a deferred transaction, which in WAL mode (settings) reads one snapshot from its first read
while submissions go on committing. Django opens SQLite transactions with BEGIN IMMEDIATE here
(settings: writers queue rather than fail), which would take the write lock for the whole export
and hold every submission back; this one transaction is opened DEFERRED instead.

Inside a transaction already (a test's, or ATOMIC_REQUESTS), the read joins it: it then sees what
that transaction sees.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def snapshot() -> Iterator[None]:
    if connection.in_atomic_block:
        with transaction.atomic():
            yield
        return
    if connection.vendor == "postgresql":
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
        return
    if connection.vendor == "sqlite":
        connection.ensure_connection()  # sets transaction_mode from the settings: override it after
        configured = connection.transaction_mode  # type: ignore[attr-defined]  # SQLite's wrapper has it
        connection.transaction_mode = "DEFERRED"  # type: ignore[attr-defined]
        try:
            with transaction.atomic():
                yield
        finally:
            connection.transaction_mode = configured  # type: ignore[attr-defined]
        return
    raise NotImplementedError(f"no consistent read for {connection.vendor}")

"""A cursor for the statements every submission runs, prepared by PostgreSQL once per connection.

Django binds parameters on the client by default: the values are written into the SQL text, so
PostgreSQL parses and plans each submission's two statements (the survey and its plan; the
one-statement write) anew: over a third of its CPU per submission. On PostgreSQL this cursor
binds on the server and prepares each statement the first time a connection runs it (settings.py
sets psycopg's prepare_threshold to 0; psycopg keeps the names, per connection and parameter
types); afterwards the server only binds and executes: its CPU per submission fell by about 35%
(docs/operations.md). Elsewhere (SQLite, where a statement costs no round trip and sqlite3 caches
its compiled statements anyway) it is the ordinary cursor.

A pooler that multiplexes transactions over server connections (PgBouncer's transaction mode)
must then be one that tracks prepared statements (PgBouncer >= 1.21 with max_prepared_statements).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper


@contextmanager
def cursor() -> Iterator[CursorWrapper]:
    """Like `connection.cursor()` (health check, Django's errors, the query log when it is on)."""
    if connection.vendor != "postgresql":
        with connection.cursor() as ordinary:
            yield ordinary
        return
    connection.validate_thread_sharing()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    import psycopg  # only with PostgreSQL

    raw = psycopg.Cursor(connection.connection)  # binds on the server, so psycopg may prepare
    wrapped = (_Logged if connection.queries_logged else CursorWrapper)(raw, connection)
    with wrapped:
        yield wrapped


class _Logged(CursorDebugWrapper):
    """The query log (DEBUG, tests) shows the statement with its values, as for Django's own
    cursors: psycopg keeps no text of a statement bound on the server."""

    def execute(self, sql: Any, params: Any = None) -> Any:
        import psycopg

        with self.debug_sql(psycopg.ClientCursor(connection.connection).mogrify(sql, params)):
            return CursorWrapper.execute(self, sql, params)

"""Scratch databases for benchmarks: a new SQLite file or PostgreSQL database that the default
connection uses meanwhile, never the configured one, removed afterwards unless kept.

`scratch_for(vendor)(requested)` gives the engine's kind: create() makes it and points the
default connection at it; loading() wraps a bulk load (indexes and constraints dropped, then
rebuilt); write() adds rows (executemany, or COPY on PostgreSQL); remove() points the connection
back at the configured database (without connecting) and deletes the scratch one, if this
object created it.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction

if TYPE_CHECKING:
    from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLWrapper  # importing it needs psycopg
    from django.db.backends.utils import CursorWrapper


class Scratch:
    """A new database of the configured engine that the default connection uses meanwhile.

    create() makes it and points the default connection at it; loading() wraps a bulk load;
    write() adds rows; remove() points the connection back at the configured database
    (without connecting) and deletes the scratch one, if this object created it.
    """

    name: str

    def __init__(self) -> None:
        self.configured = connection.settings_dict["NAME"]  # the same dict as settings.DATABASES["default"]
        self.created = False
        _keep_ctrl_c()

    def _use(self, name: str | os.PathLike[str]) -> None:
        connection.close()
        connection.settings_dict["NAME"] = name

    def remove(self, keep: bool) -> None:
        self._use(self.configured)
        if self.created and not keep:
            self._delete()

    # --- what each engine's kind provides ----------------------------------------------

    def describe(self) -> str:
        raise NotImplementedError

    def create(self) -> None:
        raise NotImplementedError

    def _delete(self) -> None:
        raise NotImplementedError

    def loading(self) -> AbstractContextManager[CursorWrapper]:
        raise NotImplementedError

    @staticmethod
    def write(cursor: CursorWrapper, table: str, columns: tuple[str, ...], rows: Iterable[Sequence[object]]) -> None:
        raise NotImplementedError


class _SQLiteScratch(Scratch):
    def __init__(self, requested: str | None) -> None:
        super().__init__()
        self.directory: str | None = None
        if requested:
            path = Path(requested).resolve()
            if path.exists():
                raise CommandError(f"{requested} exists; the benchmark only writes to a new file")
            if path == Path(str(self.configured)).resolve():
                raise CommandError("refusing to use the configured database")
        else:
            self.directory = tempfile.mkdtemp(prefix="bench-results-")
            path = Path(self.directory) / "bench.sqlite3"
        self.name = str(path)

    def describe(self) -> str:
        return f"SQLite {sqlite3.sqlite_version}"

    def create(self) -> None:
        self.created = True  # the file appears on the first connection
        self._use(self.name)

    def _delete(self) -> None:
        if self.directory:
            shutil.rmtree(self.directory, ignore_errors=True)
        else:
            Path(self.name).unlink(missing_ok=True)

    @contextmanager
    def loading(self) -> Iterator[CursorWrapper]:
        # A throwaway file: durability is not wanted while loading. Rows are consistent by construction:
        # skip the per-row foreign-key lookups. These pragmas are no-ops inside a transaction, hence
        # outside the atomic block.
        with connection.cursor() as cursor:
            for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -1000000",
                           "temp_store = MEMORY", "foreign_keys = OFF"):
                cursor.execute(f"PRAGMA {pragma}")
        with transaction.atomic(), connection.cursor() as cursor:
            rebuild = self._drop_report_indexes(cursor)
            yield cursor
            for sql in rebuild:
                cursor.execute(sql)
            cursor.execute("PRAGMA analysis_limit = 1000")  # planner statistics from a sample: seconds, not minutes
            cursor.execute("ANALYZE")
        # What is timed runs as configured (the settings' write-ahead log, cache and foreign keys):
        # the next query connects anew. Left without a journal, a background thread's writes
        # waited for the readers of other connections (a break-down's count took twice as long).
        connection.close()

    @staticmethod
    def write(cursor: CursorWrapper, table: str, columns: tuple[str, ...], rows: Iterable[Sequence[object]]) -> None:
        placeholders = ", ".join(["%s"] * len(columns))
        # The stubs ask for a Sequence; Django and sqlite3 take any iterable of rows (here a generator).
        cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})",
                           rows)  # type: ignore[arg-type]

    @staticmethod
    def _drop_report_indexes(cursor: CursorWrapper) -> list[str]:
        """Drop the report table's secondary indexes for the load; returns the SQL to rebuild them."""
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                       "AND tbl_name = 'collection_report' AND sql IS NOT NULL")
        found = cursor.fetchall()
        for name, _ in found:
            cursor.execute(f'DROP INDEX "{name}"')
        return [sql for _, sql in found]


class _PostgreSQLScratch(Scratch):
    LEAVE_SECONDS = 120  # how long remove() waits for connections it may not end (autovacuum's: seconds)

    def __init__(self, requested: str | None) -> None:
        super().__init__()
        suffix = f"_bench_{os.getpid()}"
        # Cut the configured name so the whole fits PostgreSQL's 63-byte identifiers (it would
        # otherwise truncate it silently).
        max_length = cast(int, connection.ops.max_name_length())  # typed int | None; PostgreSQL's is 63
        self.name = requested or f"{self.configured[:max_length - len(suffix)]}{suffix}"

    def describe(self) -> str:
        # `connection` is the default alias's wrapper, here PostgreSQL's (see scratch_for)
        version, settings_dict = cast("PostgreSQLWrapper", connection).pg_version, connection.settings_dict
        return (f"PostgreSQL {version // 10000}.{version % 10000} "
                f"on {settings_dict['HOST'] or 'localhost'}:{settings_dict['PORT'] or 5432}")

    def create(self) -> None:
        # As Django's test runner makes its databases: from a connection to the 'postgres'
        # maintenance database, in autocommit (CREATE DATABASE cannot run in a transaction), so
        # the configured database is not even opened.
        with connection._nodb_cursor() as cursor:
            try:
                cursor.execute(f"CREATE DATABASE {connection.ops.quote_name(self.name)}")
            except DatabaseError as error:
                if getattr(error.__cause__, "sqlstate", None) == "42P04":  # duplicate_database: not ours
                    raise CommandError(f"{self.name} exists; the benchmark only writes to a new database") from None
                raise
        self.created = True
        self._use(self.name)

    def _delete(self) -> None:
        # Called after remove() pointed the connection back, so the fallback of _nodb_cursor
        # (the configured database, if 'postgres' is unreachable) is never the scratch one.
        # FORCE: a connection left behind by an interrupted query must not keep it alive. FORCE
        # may not end another role's process, an autovacuum worker's included (PostgreSQL 15:
        # insufficient_privilege); those end by themselves, so the drop is tried again meanwhile.
        drop = f"DROP DATABASE IF EXISTS {connection.ops.quote_name(self.name)} WITH (FORCE)"
        deadline = time.monotonic() + self.LEAVE_SECONDS
        with connection._nodb_cursor() as cursor:
            for attempt in itertools.count():
                try:
                    cursor.execute(drop)
                    return
                except DatabaseError as error:
                    if getattr(error.__cause__, "sqlstate", None) != "42501" or time.monotonic() > deadline:
                        raise
                    if not attempt:
                        print(f"Waiting for another role's connection to {self.name} to end ({error})",
                              file=sys.stderr, flush=True)
                time.sleep(0.5)

    @contextmanager
    def loading(self) -> Iterator[CursorWrapper]:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL maintenance_work_mem = '512MB'")  # fewer disk passes in the index rebuilds' sorts
            rebuild = [sql for table in ("collection_response", "collection_report")
                       for sql in self._drop_secondary(cursor, table)]
            yield cursor
            for sql in rebuild:
                cursor.execute(sql)
        with connection.cursor() as cursor:
            # VACUUM (outside a transaction) now rather than autovacuum during the timings; it also
            # sets the visibility map and hint bits, as on a settled table, and ANALYZE the
            # planner statistics.
            cursor.execute("VACUUM (ANALYZE) collection_response, collection_report")

    @staticmethod
    def write(cursor: CursorWrapper, table: str, columns: tuple[str, ...], rows: Iterable[Sequence[object]]) -> None:
        # COPY through psycopg 3's cursor (the Django cursor wrapper passes copy() through):
        # one stream per batch instead of a statement per row.
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    @staticmethod
    def _drop_secondary(cursor: CursorWrapper, table: str) -> list[str]:
        """Drop a table's unique and foreign-key constraints and its other secondary indexes for
        the load (per-row index upkeep and foreign-key triggers are most of its cost: the SQLite
        path turns its foreign keys off); returns the SQL to rebuild them: indexes, then unique
        constraints, then foreign keys.

        The primary key stays, and so do CHECK constraints: next to free per row, while adding
        one back would scan the table.
        """
        quote = connection.ops.quote_name
        cursor.execute("SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
                       "WHERE indrelid = %s::regclass "
                       "AND NOT EXISTS (SELECT FROM pg_constraint WHERE conindid = indexrelid)", [table])
        indexes = cursor.fetchall()
        cursor.execute("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                       "WHERE conrelid = %s::regclass AND contype IN ('u', 'f') "
                       "ORDER BY contype DESC", [table])  # 'u' before 'f'
        constraints = cursor.fetchall()
        for name, _ in constraints:
            cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT {quote(name)}")
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {name}")  # regclass text: already quoted where needed
        return ([sql for _, sql in indexes]
                + [f"ALTER TABLE {table} ADD CONSTRAINT {quote(name)} {sql}" for name, sql in constraints])


def _keep_ctrl_c() -> None:
    """Ctrl-C landing in a finalizer or a weakref callback (migrate makes many) is printed as "Exception
    ignored" and dropped, and the run would go on for minutes with its scratch database: signal it again,
    from another thread a moment later, so that it lands after the callback (raised within the hook, it
    would be dropped too). Measured: 2 of 4 runs interrupted 0.3 s into migrate went on before."""
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            threading.Timer(0.01, signal.raise_signal, [signal.SIGINT]).start()
        else:
            previous(unraisable)

    if getattr(previous, "__qualname__", "") != hook.__qualname__:  # once per process
        sys.unraisablehook = hook


def scratch_for(vendor: str) -> Callable[[str | None], Scratch]:
    scratches: dict[str, Callable[[str | None], Scratch]] = {"sqlite": _SQLiteScratch, "postgresql": _PostgreSQLScratch}
    if vendor not in scratches:
        raise CommandError(f"the benchmark runs on SQLite or PostgreSQL, not {vendor}")
    return scratches[vendor]

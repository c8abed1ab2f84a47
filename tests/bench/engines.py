"""The engines the bench smoke tests run their commands on: the suite's own (SQLite, or PostgreSQL when
DATABASE_URL names one), each able to make, check and remove a scratch database by name; and how a bench
command is run on one, in a subprocess (it repoints the default connection at its scratch database, which must
not happen to the connection of the test process)."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url

ROOT = Path(__file__).resolve().parents[2]
SUITE_URL = os.environ.get("DATABASE_URL", "")
SUITE_DB = dj_database_url.parse(SUITE_URL) if SUITE_URL else {"ENGINE": "django.db.backends.sqlite3"}


class SQLite:
    title = "SQLite"

    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.configured = str(tmp_path / "configured.sqlite3")  # never created
        self.url = f"sqlite:///{self.configured}"

    def new_name(self, label):
        return str(self.tmp / f"{label}.sqlite3")

    def exists(self, name):
        return Path(name).exists()

    def make_precious(self, name):
        Path(name).write_bytes(b"keep me")

    def is_intact(self, name):
        return Path(name).read_bytes() == b"keep me"

    def remove(self, name):
        path = Path(name)
        path.unlink(missing_ok=True)
        if path.parent.name.startswith("bench-results-"):  # the command's own temporary directory
            shutil.rmtree(path.parent, ignore_errors=True)


class PostgreSQL:
    title = "PostgreSQL"

    def __init__(self, tmp_path):
        # The configured database is one that does not exist: the command must not need it.
        self.configured = self.new_name("configured")
        self.url = urlsplit(SUITE_URL)._replace(path=f"/{self.configured}").geturl()

    def new_name(self, label):
        return f"{SUITE_DB['NAME']}_{label}_{os.getpid()}"

    def connect(self, name="postgres"):
        import psycopg

        return psycopg.connect(dbname=name, host=SUITE_DB["HOST"] or None, port=SUITE_DB["PORT"] or None,
                               user=SUITE_DB["USER"] or None, password=SUITE_DB["PASSWORD"] or None,
                               autocommit=True)

    def exists(self, name):
        with self.connect() as conn:
            return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None

    def make_precious(self, name):
        from psycopg import sql

        with self.connect() as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        with self.connect(name) as conn:
            conn.execute("CREATE TABLE precious (note text)")
            conn.execute("INSERT INTO precious VALUES ('keep me')")

    def is_intact(self, name):
        with self.connect(name) as conn:
            return conn.execute("SELECT note FROM precious").fetchall() == [("keep me",)]

    def remove(self, name):
        from psycopg import errors, sql

        deadline = time.monotonic() + 120
        with self.connect() as conn:
            while True:
                try:
                    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
                    return
                except errors.InsufficientPrivilege:  # another role's process, e.g. autovacuum's: it ends soon
                    if time.monotonic() > deadline:
                        raise
                time.sleep(0.5)

    def bystander(self, name):
        """A superuser's session on database `name`, which the suite's role may not end; closing its stdin
        ends it. None unless this process may run psql as the server's `postgres` user."""
        if os.geteuid() != 0 or not shutil.which("runuser") or SUITE_DB["HOST"] not in ("", "127.0.0.1", "localhost"):
            return None
        psql = ["runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-p", str(SUITE_DB["PORT"] or 5432), "-d", name]
        session = subprocess.Popen(psql, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not self._has_superuser_session(name):
            assert session.poll() is None and time.monotonic() < deadline, "psql as postgres did not connect"
            time.sleep(0.1)
        return session

    def _has_superuser_session(self, name):
        with self.connect() as conn:
            return conn.execute("SELECT 1 FROM pg_stat_activity WHERE datname = %s AND usename = 'postgres'",
                                [name]).fetchone() is not None


def command(engine, *args, script="bench/results_bench.py"):
    env = {**os.environ, "DATABASE_URL": engine.url, "DJANGO_ENV": "development", "PYTHONUNBUFFERED": "1"}
    return [sys.executable, script, *args], {"cwd": ROOT, "env": env, "text": True}


def bench(engine, *args, script="bench/results_bench.py"):
    """`script` run on `engine` to its end (the other bench smoke tests run theirs through it too)."""
    argv, options = command(engine, *args, script=script)
    return subprocess.run(argv, check=False, capture_output=True, timeout=300, **options)


def scratch_name(first_line):
    """The name in "Scratch database (<engine and version>): <name>"."""
    assert first_line.startswith("Scratch database (")
    return first_line.split("): ", 1)[1]

"""`python bench/results_bench.py` on tiny sizes, on the suite's engine (SQLite, or PostgreSQL when
DATABASE_URL names one): it prints its figures, removes its scratch database even when
interrupted, and leaves the configured database alone.

The command runs in a subprocess: it repoints the default connection at its scratch database,
which must not happen to the connection of the test process.
"""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
import pytest

pytestmark = pytest.mark.engine  # runs on the suite's database engine, each of them

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
        from psycopg import sql

        with self.connect() as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


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


@pytest.mark.slow
def test_it_times_each_size_on_a_scratch_database_and_prints_the_ratio(engine):
    done = bench(engine, "--sizes", "20,200", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert engine.title in lines[0]
    assert any(line.split()[:2] == ["20", "200"] for line in lines)
    assert any(line.split()[:2] == ["200", "2,000"] for line in lines)
    assert f"{engine.title} ratio 200 / 20 responses" in done.stdout
    assert not engine.exists(engine.configured)  # it never opened (so never created) the configured database
    scratch = scratch_name(lines[0])
    if isinstance(engine, PostgreSQL):
        assert scratch.startswith(f"{engine.configured}_bench_")
    assert not engine.exists(scratch)  # and removed its own


@pytest.mark.slow
def test_it_refuses_to_write_to_an_existing_database(engine):
    existing = engine.new_name("precious")
    engine.make_precious(existing)
    try:
        done = bench(engine, "--sizes", "10", "--db", existing)
        assert done.returncode != 0 and "exists" in done.stderr
        assert engine.is_intact(existing)
    finally:
        engine.remove(existing)


@pytest.mark.slow
def test_keep_keeps_the_scratch_database_and_prints_its_name(engine):
    done = bench(engine, "--sizes", "10", "--repeat", "1", "--keep")
    assert done.returncode == 0, done.stderr
    scratch = scratch_name(done.stdout.splitlines()[0])
    try:
        assert f"Kept {scratch}" in done.stdout
        assert engine.exists(scratch)
    finally:
        engine.remove(scratch)


@pytest.mark.slow
def test_an_interrupted_run_removes_its_scratch_database(engine):
    argv, options = command(engine, "--sizes", "1000000", "--repeat", "1")
    # Ctrl-C must reach it as KeyboardInterrupt even when this process was started ignoring SIGINT (a shell's
    # background job does, and Python keeps a SIGINT ignored at start ignored).
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **options)
    scratch = None
    try:
        first = process.stdout.readline()  # printed once the scratch database exists, before migrating
        scratch = scratch_name(first.rstrip("\n"))
        process.send_signal(signal.SIGINT)  # Ctrl-C, well before a million responses are loaded
        _, stderr = process.communicate(timeout=120)
        assert process.returncode != 0 and "KeyboardInterrupt" in stderr, stderr
        assert not engine.exists(scratch)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        if scratch and engine.exists(scratch):
            engine.remove(scratch)

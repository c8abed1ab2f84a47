"""`python bench/results_bench.py` on tiny sizes, on the suite's engine (SQLite, or PostgreSQL when
DATABASE_URL names one): it prints its figures, removes its scratch database even when
interrupted, and leaves the configured database alone.

The command runs in a subprocess (tests/bench/engines.py says why).
"""

import signal
import sqlite3
import subprocess
from contextlib import closing

import pytest

from tests.bench.engines import PostgreSQL, bench, command, scratch_name

pytestmark = pytest.mark.engine  # runs on the suite's database engine, each of them


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
        if not isinstance(engine, PostgreSQL):  # timed as configured, not as loaded (without a journal)
            with closing(sqlite3.connect(scratch)) as kept:
                assert kept.execute("PRAGMA journal_mode").fetchone() == ("wal",)
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


@pytest.mark.slow
def test_a_connection_it_may_not_end_delays_the_removal_until_it_ends(engine):
    # As an autovacuum worker's does: DROP DATABASE ... WITH (FORCE) may not end another role's process.
    if not isinstance(engine, PostgreSQL):
        pytest.skip("a PostgreSQL server's processes")
    argv, options = command(engine, "--sizes", "20", "--repeat", "1")
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **options)
    scratch = bystander = None
    try:
        scratch = scratch_name(process.stdout.readline().rstrip("\n"))
        bystander = engine.bystander(scratch)  # connected within 0.2 s; the bench migrates and times for 2 s
        if bystander is None:
            pytest.skip("needs root to connect as the server's postgres user")
        for line in process.stderr:  # up to its notice, or to its end if it never waits
            if line.startswith(f"Waiting for another role's connection to {scratch} to end"):
                break
        else:
            pytest.fail(f"it ended without waiting for the session (exit code {process.wait()})")
        assert engine.exists(scratch)
        bystander.stdin.close()  # psql ends its session
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
        assert not engine.exists(scratch)
    finally:
        if bystander is not None and bystander.poll() is None:
            bystander.kill()
        if process.poll() is None:
            process.kill()
            process.communicate()
        if scratch and engine.exists(scratch):
            engine.remove(scratch)

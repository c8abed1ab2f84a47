"""`python bench/load_bench.py` for a second per phase: the production stack under wrk in two
alternating rounds, each round's submissions new (201) and stored, on the suite's engine."""

import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.server import ScratchPostgres, production_env
from tests.bench.engines import ROOT, SUITE_URL, PostgreSQL
from tests.collected_static import collect_into

pytestmark = pytest.mark.engine  # runs on the suite's database engine, each of them


@pytest.mark.slow
def test_it_alternates_the_phases_and_every_round_stores_new_submissions(tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    if SUITE_URL.startswith(("postgres://", "postgresql://")):
        env["DATABASE_URL"] = SUITE_URL  # its scratch database is created beside this one
    collect_into(production_env(tmp_path, f"sqlite:///{tmp_path / 'unused.sqlite3'}"), tmp_path / "static")
    done = subprocess.run([sys.executable, "bench/load_bench.py", "--duration", "1", "--rounds", "2", "--workers", "2",
                           "--connections", "4", "--bodies", "50", "--static-from", str(tmp_path / "static")],
                          cwd=ROOT, env={**env, "PYTHONUNBUFFERED": "1"}, text=True, capture_output=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert [line for line in out.splitlines() if line.startswith("round ")] == ["round 1 of 2:", "round 2 of 2:"]
    rounds = re.findall(r"^  submissions: +(\d+) posts .* statuses \{201: (\d+)\}$", out, re.MULTILINE)
    assert len(rounds) == 2 and all(int(posts) == int(created) > 0 for posts, created in rounds), out
    stored = re.search(r"^every POST a new submission \(201\), stored responses (\d+) == acknowledged (\d+): PASS$",
                       out, re.MULTILINE)
    assert stored and int(stored[1]) == int(stored[2]) == sum(int(created) for _, created in rounds), out
    each = re.findall(r"^  ratio ([\d.]+)$", out, re.MULTILINE)
    assert re.search(rf"^ratio submissions/s / healthz requests/s over the 2 rounds = [\d.]+ \(rounds {each[0]}, "
                     rf"{each[1]}; target >= 0.33: (PASS|MISSED)\)$", out, re.MULTILINE), out
    assert "correctness (no errors, stored == acknowledged, hashed modules, counts verified): PASS" in out
    if SUITE_URL.startswith(("postgres://", "postgresql://")):  # durable commits, though the suite's role has none
        assert re.search(r"^setup: .* \(PostgreSQL scratch database \w+, synchronous_commit = on\)$", out,
                         re.MULTILINE), out


@pytest.mark.slow
def test_its_scratch_database_waits_for_a_connection_it_may_not_end_then_goes(engine, capsys):
    # As an autovacuum worker's does: DROP DATABASE ... WITH (FORCE) may not end another role's process.
    if not isinstance(engine, PostgreSQL):
        pytest.skip("a PostgreSQL server's processes")
    scratch = ScratchPostgres(SUITE_URL)
    bystander = engine.bystander(scratch.name)
    try:
        if bystander is None:
            pytest.skip("needs root to connect as the server's postgres user")
        with ThreadPoolExecutor(max_workers=1) as pool:
            dropping = pool.submit(scratch.drop)
            deadline = time.monotonic() + 30
            while "Waiting for another role's connection" not in capsys.readouterr().err:
                assert not dropping.done() and time.monotonic() < deadline, "it did not wait for the session"
                time.sleep(0.1)
            assert engine.exists(scratch.name)
            bystander.stdin.close()  # psql ends its session
            dropping.result(timeout=60)
        assert not engine.exists(scratch.name)
    finally:
        if bystander is not None and bystander.poll() is None:
            bystander.kill()
        if engine.exists(scratch.name):
            engine.remove(scratch.name)

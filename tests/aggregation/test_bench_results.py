"""`manage.py bench_results` on tiny sizes: it prints its figures and leaves the configured database alone."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench(tmp_path, *args):
    configured = tmp_path / "configured.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{configured}", "DJANGO_ENV": "development"}
    done = subprocess.run([sys.executable, "manage.py", "bench_results", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    return done, configured


def test_it_times_each_size_on_a_scratch_database_and_prints_the_ratio(tmp_path):
    done, configured = bench(tmp_path, "--sizes", "20,200", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.split()[:2] == ["20", "200"] for line in lines)
    assert any(line.split()[:2] == ["200", "2,000"] for line in lines)
    assert "Ratio 200 / 20 responses" in done.stdout
    assert not configured.exists()  # it never opened the configured database
    scratch = Path(lines[0].removeprefix("Scratch database: "))
    assert not scratch.exists()  # and removed its own


def test_it_refuses_to_write_to_an_existing_file(tmp_path):
    existing = tmp_path / "precious.sqlite3"
    existing.write_bytes(b"keep me")
    done, _ = bench(tmp_path, "--sizes", "10", "--db", str(existing))
    assert done.returncode != 0 and "exists" in done.stderr
    assert existing.read_bytes() == b"keep me"

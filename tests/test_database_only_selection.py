"""`--database-only` (the PostgreSQL run of `make test`) keeps every test that uses the database or
the suite's engine and leaves out only those that cannot depend on the engine: those that use no database,
and the modules tests/conftest.py names in SAME_ON_EVERY_ENGINE."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = ["tests/ldp/mechanisms/test_mechanisms.py", "tests/collection/test_store.py", "tests/bench/test_load_bench.py",
         "tests/test_landing.py", "tests/test_csp.py"]


def collected(*options: str) -> set[str]:
    command = [sys.executable, "-m", "pytest", "--collect-only", "-o", "addopts=-q", "-p", "no:cacheprovider"]
    run = subprocess.run([*command, *options, *FILES], cwd=ROOT, capture_output=True, text=True, check=True)
    return {line for line in run.stdout.splitlines() if "::" in line}


def files(tests: set[str]) -> set[str]:
    return {test.split("::")[0] for test in tests}


@pytest.mark.slow  # two collections of the suite in subprocesses
def test_it_keeps_the_tests_that_use_the_database_or_the_engine_and_only_those():
    everything, kept = collected(), collected("--database-only")
    left_out = everything - kept
    assert kept and left_out and kept < everything
    assert files(left_out) == {"tests/ldp/mechanisms/test_mechanisms.py", "tests/collection/test_store.py",
                               "tests/test_csp.py"}
    assert files(everything) == set(FILES)
    assert files(kept) == {"tests/collection/test_store.py", "tests/bench/test_load_bench.py", "tests/test_landing.py"}
    # test_store.py holds both: the writers' lock (the database) and its file's permissions (no database).
    assert "tests/collection/test_store.py::test_an_in_memory_database_takes_no_lock_file" in left_out

"""The scratch-database engine every bench smoke test runs its command on: the suite's own (SQLite, or
PostgreSQL when DATABASE_URL names one); see tests/bench/engines.py."""

import pytest

from tests.bench.engines import SUITE_DB, PostgreSQL, SQLite


@pytest.fixture
def engine(tmp_path):
    postgres = SUITE_DB["ENGINE"] == "django.db.backends.postgresql"
    return PostgreSQL(tmp_path) if postgres else SQLite(tmp_path)

"""An empty SQLite database as `manage.py migrate` leaves it under production settings, made once
(tests/made_once.py) and copied for each production-mode server of the tests (about 3.4 CPU-s a migration).

Its inputs: the app's code (its migrations, and the models and settings they read) and the versions of the
packages whose migrations run too."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from tests.made_once import ROOT, digest, made_once

PACKAGES = ["django", "django-otp", "djangorestframework", "drf-spectacular"]


def migrated_into(env: dict[str, str]) -> None:
    """`env`'s database (a SQLite file, DATABASE_URL sqlite:///...) made as `manage.py migrate` with `env`'s
    production settings makes it."""
    url = env["DATABASE_URL"]
    assert url.startswith("sqlite:///"), url

    def migrate(folder: Path) -> None:
        done = subprocess.run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT,
                              env={**env, "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}"}, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        with closing(sqlite3.connect(folder / "db.sqlite3")) as connection:  # the one file holds it all
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("PRAGMA journal_mode=DELETE")

    made = made_once("sqlite", digest([ROOT / "surveys"], PACKAGES), migrate)
    shutil.copyfile(made / "db.sqlite3", url.removeprefix("sqlite:///"))

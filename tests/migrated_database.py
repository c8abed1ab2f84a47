"""An empty SQLite database as `manage.py migrate` leaves it under production settings (and, if asked, the commands
after it: the demo survey), made once (tests/made_once.py) and copied for each production-mode server of the tests
(about 3.4 CPU-s a migration, 2.8 the demo survey). Nothing in it depends on the server's secret key (only the rate
limits' keys do, in the cache), so servers with keys of their own share it.

Its inputs: the app's code (its migrations, and the models and settings they read) and the versions of the
packages whose migrations run too."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from tests.made_once import ROOT, digest, made_once

PACKAGES = ["django", "django-otp", "djangorestframework", "drf-spectacular"]


def migrated_into(env: dict[str, str], *then: tuple[str, ...]) -> None:
    """`env`'s database (a SQLite file, DATABASE_URL sqlite:///...) made as `manage.py migrate` with `env`'s
    production settings makes it, then each management command of `then` (("demo", "--responses", "0"))."""
    url = env["DATABASE_URL"]
    assert url.startswith("sqlite:///"), url

    def migrate(folder: Path) -> None:
        for command in (("migrate", "--verbosity", "0"), *then):
            done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT,
                                  env={**env, "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}"},
                                  capture_output=True, text=True, timeout=300, check=False)
            assert done.returncode == 0, done.stdout + done.stderr
        with closing(sqlite3.connect(folder / "db.sqlite3")) as connection:  # the one file holds it all
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("PRAGMA journal_mode=DELETE")

    commands = hashlib.sha256(repr(then).encode()).hexdigest()[:8]
    made = made_once(f"sqlite-{commands}", digest([ROOT / "surveys"], PACKAGES), migrate)
    shutil.copyfile(made / "db.sqlite3", url.removeprefix("sqlite:///"))

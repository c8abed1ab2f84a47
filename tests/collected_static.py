"""collectstatic's output under production settings (hashed names, ES imports rewritten, gzip and brotli copies),
made once (tests/made_once.py) and copied into each production-mode server's directory of the tests.

A run costs about 11 CPU-s, most of it brotli over the admin's files, and the modules that start such a server
(tests/e2e/production.py's users, the worker-timeout export, the load bench, the pinned client code) would each pay
it. Its inputs: the project's static files, the storage and settings modules, Django's and whitenoise's versions.
tests/test_deploy.py still runs collectstatic itself, for what it checks of the command.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.made_once import ROOT, digest, made_once

SOURCES = [ROOT / "static", ROOT / "surveys" / "storage.py", ROOT / "surveys" / "settings.py"]


def collect_into(env: dict[str, str], target: Path) -> None:
    """collectstatic's files, as `env`'s production settings make them, copied to `target` (its STATIC_ROOT)."""

    def collect(folder: Path) -> None:
        done = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                              cwd=ROOT, env={**env, "DJANGO_STATIC_ROOT": str(folder)}, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr

    made = made_once("static", digest(SOURCES, ["django", "whitenoise"]), collect)
    shutil.copytree(made, target, dirs_exist_ok=True)

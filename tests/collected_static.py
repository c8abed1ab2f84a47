"""collectstatic's output under production settings (hashed names, ES imports rewritten, gzip and brotli copies),
made once per version of its inputs and copied into each production-mode server's directory of the tests.

A run costs about 11 CPU-s, most of it brotli over the admin's files, and the modules that start such a server
(tests/e2e/production.py's users, the worker-timeout export) would each pay it, in processes of their own: the
first to ask makes it under a file lock in the system's temporary directory, the others copy it. The output is
named by a digest of what it is made from (the project's static files, the storage and settings modules, Django's
and whitenoise's versions), so a changed source is collected again. tests/test_deploy.py still runs collectstatic
itself, for what it checks of the command.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "static", ROOT / "surveys" / "storage.py", ROOT / "surveys" / "settings.py"]


def inputs_digest() -> str:
    digest = hashlib.sha256()
    for package in ("django", "whitenoise"):
        digest.update(f"{package} {metadata.version(package)}\n".encode())
    for source in SOURCES:
        for path in sorted([source] if source.is_file() else (p for p in source.rglob("*") if p.is_file())):
            digest.update(f"{path.relative_to(ROOT)}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def collect_into(env: dict[str, str], target: Path) -> None:
    """collectstatic's files, as `env`'s production settings make them, copied to `target` (its STATIC_ROOT)."""
    made = Path(tempfile.gettempdir()) / "ldp-collected-static" / inputs_digest()
    made.parent.mkdir(exist_ok=True)
    with open(made.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker collects; the others wait for it, then copy
        if not (made / "staticfiles.json").exists():
            partial = made.with_name(f"{made.name}.{os.getpid()}")
            shutil.rmtree(partial, ignore_errors=True)
            done = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                                  cwd=ROOT, env={**env, "DJANGO_STATIC_ROOT": str(partial)}, capture_output=True,
                                  text=True, timeout=300, check=False)
            assert done.returncode == 0, done.stdout + done.stderr
            shutil.rmtree(made, ignore_errors=True)
            partial.rename(made)
    shutil.copytree(made, target, dirs_exist_ok=True)

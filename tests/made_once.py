"""Set-up that the test servers of several modules need and that comes out the same from the same inputs
(collectstatic's files, a migrated SQLite database): made once per version of those inputs, under a file lock in
the system's temporary directory, where every pytest worker of a run (and the runs after it) finds it.

The name of what is made holds a digest of its inputs (files, and the versions of the packages it depends on), so
that a changed input makes it again, never serves a stale copy."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import tempfile
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def digest(sources: Iterable[Path], packages: Iterable[str]) -> str:
    """Of every file under `sources` (files or folders, their paths and contents) and the packages' versions."""
    made = hashlib.sha256()
    for package in packages:
        made.update(f"{package} {metadata.version(package)}\n".encode())
    for source in sources:
        for path in sorted([source] if source.is_file() else (p for p in source.rglob("*") if p.is_file())):
            if "__pycache__" not in path.parts:
                made.update(f"{path.relative_to(ROOT)}\n".encode())
                made.update(hashlib.sha256(path.read_bytes()).digest())
    return made.hexdigest()[:16]


def made_once(kind: str, key: str, make: Callable[[Path], None]) -> Path:
    """The folder `make` fills (given a new, empty one), made by the first caller for this `kind` and `key`; the
    others wait for it. Callers copy from it: it is shared."""
    made = Path(tempfile.gettempdir()) / "ldp-made-once" / f"{kind}-{key}"
    made.parent.mkdir(exist_ok=True)
    with open(made.with_name(made.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            partial = made.with_name(made.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir()
            make(partial)
            partial.rename(made)  # whole, or not there
    return made

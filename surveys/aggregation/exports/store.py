"""The private directory of prepared exports (settings.EXPORT_DIR): 0700, its files 0600.

A preparation writes `<id>-<attempt>.<ext>.part` and renames it to `<id>-<attempt>.<ext>` only once
it is complete, flushed and hashed: a file without `.part` is whole. Every file of an export starts
with its id, so removing an export removes whatever any attempt left.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from django.conf import settings

PART = ".part"
FILE_NAME = re.compile(r"(?P<id>[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})-[0-9]+\.(?:csv|json|dta|sav)(?:\.part)?")
BLOCK = 1 << 16  # read back to hash it: small, so an export's memory stays what its rows need


def directory() -> Path:
    folder = Path(settings.EXPORT_DIR)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def name(export_id: object, attempt: int, extension: str) -> str:
    return f"{export_id}-{attempt}.{extension}"


def create(file_name: str) -> BinaryIO:
    """A new temporary file for `file_name`, readable by this user only; never through a symlink."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(directory() / (file_name + PART), flags, 0o600), "w+b")


def publish(out: BinaryIO, file_name: str) -> tuple[int, str]:
    """Flush `out` to disk, hash it and rename it to `file_name`; its size and SHA-256 (hex)."""
    out.flush()
    os.fsync(out.fileno())
    out.seek(0)
    digest = hashlib.sha256()
    size = 0
    while block := out.read(BLOCK):
        digest.update(block)
        size += len(block)
    out.close()
    folder = directory()
    os.replace(folder / (file_name + PART), folder / file_name)
    return size, digest.hexdigest()


def discard(out: BinaryIO, file_name: str) -> None:
    out.close()
    unlink(file_name + PART)


def unlink(file_name: str) -> None:
    (directory() / file_name).unlink(missing_ok=True)


def size(file_name: str) -> int | None:
    """The published file's size, or None if there is none."""
    try:
        return (directory() / file_name).stat().st_size
    except FileNotFoundError:
        return None


def open_whole(file_name: str) -> BinaryIO | None:
    """The published file, open for reading (it stays readable if removed meanwhile), or None."""
    try:
        return (directory() / file_name).open("rb")
    except FileNotFoundError:
        return None


def remove(export_ids: Iterable[object]) -> int:
    """Delete every file of these exports (whole or partial); how many."""
    prefixes = tuple(f"{export_id}-" for export_id in export_ids)
    if not prefixes:
        return 0
    removed = 0
    for path in directory().iterdir():
        if path.name.startswith(prefixes):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def orphans(known: set[str], older_than: float) -> list[Path]:
    """Export files (by their names' pattern; nothing else in the directory is touched) of no export in
    `known` (ids as text), untouched for `older_than` seconds: left by a killed worker or a deleted survey."""
    cutoff = time.time() - older_than
    found = []
    for path in directory().iterdir():
        match = FILE_NAME.fullmatch(path.name)
        if match and match["id"] not in known and path.stat().st_mtime < cutoff:
            found.append(path)
    return found

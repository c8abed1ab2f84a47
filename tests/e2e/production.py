"""A production-mode instance for the audit's tests: production settings, the demo survey on a SQLite file,
collectstatic's hashed (and compressed) files served by whitenoise under gunicorn, in a temporary directory.

`tamper` may rewrite collected files before the server starts, as a server that serves other code than
it was built with would: the module hashes the page pins are then computed from those files."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.server import HOST, free_port, production_env, start_gunicorn, stop, wait_healthy
from tests.collected_static import collect_into
from tests.migrated_database import migrated_into


def collected(directory: Path, name: str) -> Path:
    """The hashed file collectstatic wrote for `name` (e.g. "js/randomizer.js")."""
    paths = json.loads((directory / "static" / "staticfiles.json").read_text())["paths"]
    return directory / "static" / paths[name]


def replace_in(path: Path, original: str, replacement: str) -> None:
    """Swap text in a collected file and drop its compressed copies (else whitenoise serves those)."""
    text = path.read_text()
    assert original in text, f"{original!r} is not in {path.name}"
    path.write_text(text.replace(original, replacement))
    for suffix in (".gz", ".br"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


@contextmanager
def production_server(directory: Path, tamper: Callable[[Path], None] | None = None,
                      collect: bool = True) -> Iterator[str]:
    """Yields the demo survey's URL on a production-mode server (prepared in `directory`, once). Each start
    collects the static files from the sources, then tampers; `collect=False` starts on the files an earlier,
    untampered start collected (tests/collected_static.py: copied from the files collected once)."""
    env = production_env(directory, f"sqlite:///{directory / 'db.sqlite3'}")
    if not (directory / "db.sqlite3").exists():
        migrated_into(env, ("demo", "--responses", "0"))  # made once (tests/migrated_database.py)
    if collect or not (directory / "static" / "staticfiles.json").exists():
        collect_into(env, Path(env["DJANGO_STATIC_ROOT"]))
    if tamper is not None:
        tamper(directory)
    port = free_port()
    process = start_gunicorn(env, port, 2, directory / "gunicorn.log")
    try:
        wait_healthy(port, process)
        yield f"http://{HOST}:{port}/s/demo/"
    finally:
        stop(process)

"""Writing one prepared export: from one snapshot of the database into the private directory, whole or
not at all (surveys.aggregation.exports.prepared decides when; this module does it).

In the background (settings.EXPORT_BACKGROUND), a thread of the web process writes the file while a
second one records its progress and that it is alive every HEARTBEAT seconds, from a connection of
its own: the writer's connection is inside the snapshot's read transaction, whose writes nobody else
would see before it ends. A preparation that stops saying it is alive (its worker was killed or
restarted) is taken over by the next request. The heartbeat also learns when the export was
removed meanwhile (a purge) or taken over, and stops the writer.

Whatever happens, only a complete file is published: it is written under a temporary name, its rows
are checked against the snapshot's count of responses, it is flushed and hashed, then renamed, and
the export is marked ready with its rows, bytes, SHA-256 and codebook only if this attempt still owns
it (otherwise the file is removed again).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.db import connections
from django.utils import timezone

from surveys.collection import plan
from surveys.collection.models import Response, Survey

from ..models import PreparedExport
from ..results.snapshot import snapshot
from . import direct_columns
from . import reports as exports
from . import store as export_store
from .formats import FORMATS, REPORTS

log = logging.getLogger(__name__)
HEARTBEAT = 2.0  # seconds between a preparation's signs of life
# What the Stata and SPSS files are written with. Imported in the first .dta or .sav preparation, they took
# most of it (0.4 s of 0.5 on a quiet machine, seconds on a busy one, past the request's EXPORT_WAIT: a 202
# where reports.csv answered at once), so the web process imports them as it starts (surveys/wsgi.py).
WRITERS = ("pandas", "pyreadstat")
Status = PreparedExport.Status


class Stopped(Exception):
    """The export was removed or taken over while it was being written."""


class Incomplete(Exception):
    """The file's rows are not the snapshot's responses."""


class Progress:
    def __init__(self) -> None:
        self.rows = 0
        self.responses: int | None = None
        self.stopped = False
        self.done = threading.Event()

    def tick(self, rows: int) -> None:
        self.rows = rows
        if self.stopped:
            raise Stopped


def load_writers() -> None:
    """Import the Stata and SPSS writers now, not inside the first preparation that needs them."""
    for name in WRITERS:
        import_module(name)


def start(export: PreparedExport) -> None:
    """Prepare `export` (its current attempt): in a background thread, or now, in this request."""
    if not settings.EXPORT_BACKGROUND:
        try:
            prepare(export.pk, export.attempt, Progress())
        except Exception:  # logged, and the export marked failed: the request answers so
            pass
        return
    threading.Thread(target=_in_background, args=(export.pk, export.attempt), daemon=True,
                     name=f"export-{export.pk}-{export.attempt}").start()


def _in_background(export_id: Any, attempt: int) -> None:
    progress = Progress()
    beat = threading.Thread(target=_heartbeat, args=(export_id, attempt, progress), daemon=True,
                            name=f"export-{export_id}-{attempt}-heartbeat")
    beat.start()
    try:
        prepare(export_id, attempt, progress)
    except Exception:  # logged by prepare; a thread has nobody to tell
        pass
    finally:
        progress.done.set()
        beat.join()
        connections.close_all()  # this thread's own connections


def _heartbeat(export_id: Any, attempt: int, progress: Progress) -> None:
    try:
        while not progress.done.wait(HEARTBEAT):
            alive = _owned(export_id, attempt).update(heartbeat_at=timezone.now(), rows=progress.rows,
                                                      responses=progress.responses)
            if not alive:
                progress.stopped = True
                return
    finally:
        connections.close_all()


def _owned(export_id: Any, attempt: int) -> Any:
    return PreparedExport.objects.filter(pk=export_id, attempt=attempt, status=Status.PREPARING)


def prepare(export_id: Any, attempt: int, progress: Progress) -> None:
    """Write the export's file from one snapshot and mark it ready; on any failure, mark it failed
    (and re-raise), leaving no file behind."""
    export = PreparedExport.objects.get(pk=export_id)
    kind = FORMATS[export.format]
    file_name = export_store.name(export_id, attempt, export.format)
    for earlier in range(1, attempt):  # what a worker that died while writing left
        export_store.unlink(export_store.name(export_id, earlier, export.format) + export_store.PART)
    out = export_store.create(file_name)
    try:
        with snapshot():
            survey = Survey.objects.get(pk=export.survey_id)
            current = plan.of(survey)
            book = exports.codebook(survey, current)
            made_from = basis(book)
            direct = direct_columns.described(export.variant) if export.format in REPORTS else None
            if direct is not None:  # the codebook of the file's columns; its basis the survey's
                book = {**exports.codebook(survey, direct_columns.plan_for(current, export.variant)),
                        "direct": direct}
            progress.responses = responses = Response.objects.filter(survey=survey).count()
            whole = responses if kind.expected is None else kind.expected(survey, current, export.variant)
            as_of = timezone.now()
            written = kind.write(survey, current, out, progress.tick, export.variant)
        rows, added = written if isinstance(written, tuple) else (written, {})
        if rows != whole:
            raise Incomplete(f"{rows} rows written of {whole} responses")
        size, digest = export_store.publish(out, file_name)
    except BaseException as error:
        export_store.discard(out, file_name)
        # Failed, unless it was removed (a purge deletes the file being written) or taken over meanwhile.
        if not isinstance(error, Stopped) and _owned(export_id, attempt).update(status=Status.FAILED,
                                                                                 **_until(timezone.now())):
            log.exception("Preparing %s of survey %s failed", kind.name, export.survey_id)
        raise
    book["export"] = {"file": exports.filename(survey, kind.name), "format": export.format, "rows": rows,
                      "bytes": size, "sha256": digest, "as_of": as_of.isoformat(), **added}
    finished = _owned(export_id, attempt).update(
        status=Status.READY, rows=rows, responses=responses, basis=made_from, bytes=size, sha256=digest, as_of=as_of,
        codebook=json.dumps(book, indent=2, allow_nan=False), **_until(timezone.now()))
    if not finished:  # removed (a purge) or taken over while it was written: it must not stay
        export_store.unlink(file_name)


def _until(now: datetime) -> dict[str, datetime]:
    return {"finished_at": now, "expires_at": now + timedelta(hours=settings.EXPORT_KEEP_HOURS)}


def basis(book: dict[str, Any]) -> str:
    """A digest of a codebook, its "export" part left out: what else an export was made from."""
    described = {key: value for key, value in book.items() if key != "export"}
    return hashlib.sha256(json.dumps(described, sort_keys=True, allow_nan=False).encode()).hexdigest()

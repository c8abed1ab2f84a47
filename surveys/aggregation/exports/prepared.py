"""Prepared exports: the randomized reports as CSV, JSON, Stata and SPSS files, each written whole
before anybody downloads it (an export is whole or it is an error: a file cut by a worker's timeout would pass for a
whole one).

Streamed, a large survey's export outlived gunicorn's worker timeout (a CSV of 3 x 10^5 responses
took 27 s, the timeout is 15 s): the worker was killed after the 200 had gone out, and the
researcher got a cut file that looked complete. However fast an export gets, a larger survey takes
longer than any timeout, so the file is made first and sent afterwards:

- `request(survey, format)` (a GET of .../export/reports.csv): a ready file that is still current
  (no response added since, the codebook unchanged) is sent at once; otherwise a preparation is
  started, or joined if one is running (also one started by another worker), or taken over if its
  worker died (no heartbeat for STALE_AFTER). The request waits up to settings.EXPORT_WAIT seconds
  (small surveys are then sent at once), then is told "being prepared" (202) with the export's id.
- `find(survey, id)` (.../reports.csv?export=<id>, where the 202 points): that export, whatever has
  arrived since, until it is removed.
- A file is sent with its Content-Length, `Repr-Digest: sha-256=...` and `X-Export-Rows`; its codebook
  (codebook.json?export=<id>) has the same rows, bytes, SHA-256 and the time of its snapshot.

Removal (`prune`): a file is removed EXPORT_KEEP_HOURS after it is ready, when new responses (or a
changed survey) make it stale, and when a newer one of the same survey and format is ready. On every
plain export request (expired ones of every survey, stale ones of that survey) and by
`manage.py prune_exports` (every survey, and files no export owns: a killed worker's partial file,
a deleted survey's). A purge removes the survey's exports with its responses (`remove_for`).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, BinaryIO

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from surveys.collection import plan
from surveys.collection.models import Response, Survey

from ..models import PreparedExport
from ..results.service import Unavailable
from . import preparation
from . import reports as exports
from . import store as export_store
from .formats import LISTED

STALE_AFTER = timedelta(seconds=60)  # a preparation silent this long lost its worker (heartbeat: 2 s)
POLL = 0.2  # seconds between looks at a preparation a request waits for
Status = PreparedExport.Status


def request(survey: Survey, fmt: str, variant: str = "") -> PreparedExport | None:
    """A ready, current export of `fmt` (and `variant`: which file of the format), or one being prepared (waited
    for up to EXPORT_WAIT seconds); None if it was removed while waited for (a purge)."""
    _remove(_gone() | _stale(survey))
    for ready in survey.prepared_exports.filter(format=fmt, variant=variant, status=Status.READY) \
            .order_by("-finished_at"):
        if export_store.size(file_name(ready)) == ready.bytes:
            return ready
        _remove(PreparedExport.objects.filter(pk=ready.pk))  # its file is gone or changed: made again below
    return _wait(_preparing(survey, fmt, variant))


def find(survey: Survey, export_id: str, fmt: str | None = None) -> PreparedExport | None:
    """The survey's export `export_id` (of `fmt`, if given) while it is kept; None otherwise."""
    try:
        uuid.UUID(export_id)
    except ValueError:
        return None
    _remove(_gone())
    return survey.prepared_exports.filter(pk=export_id, **({"format": fmt} if fmt else {})).first()


def opened(export: PreparedExport) -> BinaryIO | None:
    """A ready export's file, open (still readable if it is removed meanwhile), if it is the file recorded."""
    out = export_store.open_whole(file_name(export))
    if out is not None and out.seek(0, 2) != export.bytes:
        out.close()
        return None
    if out is not None:
        out.seek(0)
    return out


def file_name(export: PreparedExport) -> str:
    return export_store.name(export.pk, export.attempt, export.format)


def _preparing(survey: Survey, fmt: str, variant: str) -> PreparedExport:
    """The preparation of `fmt` and `variant` that is running: this one's, another worker's, or started now."""
    while True:
        now = timezone.now()
        running = survey.prepared_exports.filter(format=fmt, variant=variant, status=Status.PREPARING).first()
        if running is None:
            try:
                with transaction.atomic():
                    running = PreparedExport.objects.create(survey=survey, format=fmt, variant=variant,
                                                            created_at=now, heartbeat_at=now)
            except IntegrityError:
                continue  # another worker started it just now: join that one
            preparation.start(running)
        elif running.heartbeat_at < now - STALE_AFTER:
            taken = PreparedExport.objects.filter(pk=running.pk, attempt=running.attempt, status=Status.PREPARING) \
                .update(attempt=F("attempt") + 1, heartbeat_at=now, rows=0)
            if not taken:
                continue  # finished or taken over meanwhile: look again
            running.refresh_from_db()
            preparation.start(running)
        return running


def _wait(export: PreparedExport) -> PreparedExport | None:
    deadline = time.monotonic() + settings.EXPORT_WAIT
    while True:
        try:
            export.refresh_from_db()
        except PreparedExport.DoesNotExist:
            return None
        if export.status != Status.PREPARING or time.monotonic() >= deadline:
            return export
        time.sleep(POLL)


def fingerprint(survey: Survey) -> tuple[int, str]:
    """What a current export of `survey` was made from: its number of responses and codebook."""
    book = exports.codebook(survey, plan.of(survey))
    return Response.objects.filter(survey=survey).count(), preparation.basis(book)


def _gone() -> Q:
    """Exports past their time, and preparations abandoned for as long."""
    now = timezone.now()
    return Q(expires_at__lt=now) | Q(status=Status.PREPARING,
                                     heartbeat_at__lt=now - timedelta(hours=settings.EXPORT_KEEP_HOURS))


def _stale(survey: Survey) -> Q:
    """`survey`'s ready exports made from other responses or another codebook than it has now, and
    those older than its newest ready export of the same format and variant."""
    try:
        count, basis = fingerprint(survey)
    except Unavailable:
        count, basis = -1, ""  # no export of it is current
    stale, newest = [], set()
    for pk, fmt, variant, responses, made_from in survey.prepared_exports.filter(status=Status.READY) \
            .order_by("-finished_at").values_list("pk", "format", "variant", "responses", "basis"):
        if (responses, made_from) != (count, basis) or (fmt, variant) in newest:
            stale.append(pk)
        newest.add((fmt, variant))
    return Q(pk__in=stale)


def _remove(condition: Q | QuerySet[PreparedExport]) -> int:
    """Delete these exports and their files (at once: should the transaction roll back, an export whose
    file is missing is made again or answers "no longer kept", never sent)."""
    found = PreparedExport.objects.filter(condition) if isinstance(condition, Q) else condition
    ids = list(found.values_list("pk", flat=True))
    if ids:
        PreparedExport.objects.filter(pk__in=ids).delete()
        export_store.remove(ids)
    return len(ids)


def remove_for(survey: Survey) -> int:
    """Remove every prepared export of `survey` (a purge, in its transaction); how many. Once the
    transaction has committed, again: a preparation asked for while it ran (PostgreSQL lets a request
    insert one meanwhile) may read the responses as they were before it, and must not stay."""
    transaction.on_commit(lambda: _remove(survey.prepared_exports.all()))
    return _remove(survey.prepared_exports.all())


def prune(orphans: bool = True) -> tuple[int, int]:
    """Remove the exports past their time or stale, of every survey, and (`orphans`) the files no export
    owns; how many of each."""
    removed = _remove(_gone())
    for survey in Survey.objects.filter(prepared_exports__status=Status.READY).distinct():
        removed += _remove(_stale(survey))
    files = 0
    if orphans:
        known = {str(pk) for pk in PreparedExport.objects.values_list("pk", flat=True)}
        for path in export_store.orphans(known, STALE_AFTER.total_seconds()):
            path.unlink(missing_ok=True)
            files += 1
    return removed, files


@dataclass(frozen=True)
class State:
    """What the dashboard shows of one format: its newest ready file, a running preparation, a failure."""

    ready: PreparedExport | None
    preparing: PreparedExport | None
    failed: PreparedExport | None


def states(survey: Survey) -> dict[str, State]:
    """Per format: its newest ready export, its running preparation, and its newest export if that failed."""
    found: dict[str, dict[str, Any]] = {fmt: {} for fmt in LISTED}
    for export in survey.prepared_exports.filter(format__in=LISTED, variant="").exclude(_gone()) \
            .order_by("-created_at"):
        by = found[export.format]
        by.setdefault("newest", export)
        by.setdefault(export.status, export)
    return {fmt: State(by.get(Status.READY), by.get(Status.PREPARING),
                       by["newest"] if by.get("newest") and by["newest"].status == Status.FAILED else None)
            for fmt, by in found.items()}

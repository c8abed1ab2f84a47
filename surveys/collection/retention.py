"""Retention that happens: a survey's responses are deleted a set number of days after collection ended.

Collection ends at the Close action (`Survey.closed_at`) or at the survey's closing time (`closes_at`),
whichever comes first; a draft, or an open survey whose closing time is still to come, has not ended, so
nothing of it expires. The period is required at Open (`lifecycle.problems`), so every survey that ever
took a response has one, except those opened before it existed (nothing is deleted on a date nobody chose).

`purge_expired` (run daily by `manage.py purge_expired`, docs/operations.md) purges each expired survey that
still holds anything with `purge.purge`, in its own transaction together with the record in the configuration
history (its "responses deleted at" field), so a failure leaves that survey whole and the others done.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from surveys.history import recorder

from . import purge
from .models import Invitation, Response, Survey

WHO = "manage.py purge_expired"


def ended_at(survey: Survey, now: datetime | None = None) -> datetime | None:
    """When collection ended: the earlier of the Close action and a closing time already past; None if it has not."""
    now = now or timezone.now()
    found = [moment for moment in (survey.closed_at if survey.status == Survey.Status.CLOSED else None,
                                   survey.closes_at if survey.status != Survey.Status.DRAFT else None)
             if moment is not None and moment <= now]
    return min(found, default=None)


def expires_at(survey: Survey, now: datetime | None = None) -> datetime | None:
    """When its responses are to be deleted: collection's end plus the retention period (None while either is
    unknown)."""
    ended = ended_at(survey, now)
    if ended is None or survey.retention_days is None:
        return None
    return ended + timedelta(days=survey.retention_days)


def holds_anything(survey: Survey) -> bool:
    """Responses, invitations or prepared exports left to delete (a purged survey holds none: not purged daily)."""
    return (Response.objects.filter(survey=survey).exists() or Invitation.objects.filter(survey=survey).exists()
            or survey.prepared_exports.exists())


def expired(now: datetime | None = None) -> list[Survey]:
    """Surveys past their retention date that still hold something, by slug."""
    now = now or timezone.now()
    candidates = Survey.objects.exclude(status=Survey.Status.DRAFT).filter(retention_days__isnull=False)
    return [survey for survey in candidates.order_by("slug")
            if (until := expires_at(survey, now)) is not None and until <= now and holds_anything(survey)]


@dataclass(frozen=True)
class Expired:
    survey: Survey
    expired_at: datetime
    purged: purge.Purged


def purge_expired(now: datetime | None = None) -> list[Expired]:
    """Purge every expired survey, one transaction each (the purge and its history together)."""
    now = now or timezone.now()
    done = []
    for survey in expired(now):
        until = expires_at(survey, now)
        with transaction.atomic(), recorder.recording(None, survey.pk, who=WHO):
            removed = purge.purge(survey)
            Survey.objects.filter(pk=survey.pk).update(purged_at=now)
        done.append(Expired(survey, until, removed))  # type: ignore[arg-type]  # expired() found a date
    return done

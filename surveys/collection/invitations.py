"""Single-use invitation links: made in bulk, stored as digests, spent atomically.

The token travels in the link's fragment (`/s/<slug>/#invitation=<token>`), which browsers
never send to a server, and respond.js posts it in the JSON body: no access log or proxy
sees it. `store.store_response` spends a token with one conditional UPDATE inside the
response's transaction, so of any number of concurrent submissions with one token exactly
one succeeds, and a failure later in that transaction leaves the token unspent.
"""

from __future__ import annotations

import csv
import hashlib
import io
import secrets

from django.db import transaction
from django.db.models import Count, Q
from django.utils.translation import gettext as _

from .models import Invitation, Survey

TOKEN_BYTES = 24  # 192 random bits
MAX_BATCH = 100_000


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def link(base_url: str, survey: Survey, token: str) -> str:
    return f"{base_url.rstrip('/')}/s/{survey.slug}/#invitation={token}"


def links_csv(base_url: str, survey: Survey, tokens: list[str]) -> str:
    """A CSV of links, one column: the only copy of the tokens there will ever be."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["link"])
    writer.writerows([link(base_url, survey, token)] for token in tokens)
    return out.getvalue()


def create(survey: Survey, count: int) -> list[str]:
    """Make `count` invitations; returns their tokens, which exist nowhere else afterwards."""
    if not 1 <= count <= MAX_BATCH:
        raise ValueError(f"count must be from 1 to {MAX_BATCH}")
    tokens = [secrets.token_urlsafe(TOKEN_BYTES) for _ in range(count)]
    with transaction.atomic():
        Invitation.objects.bulk_create(
            [Invitation(survey=survey, token_digest=digest(token)) for token in tokens], batch_size=1000)
    return tokens


def counts(survey: Survey) -> tuple[int, int]:
    """(made, used) for the survey: one query."""
    found = Invitation.objects.filter(survey=survey).aggregate(made=Count("pk"), used=Count("pk", filter=Q(used=True)))
    return found["made"], found["used"]


def refusal(survey: Survey, token: str) -> str:
    """Why a token could not be spent, for the respondent's message."""
    if Invitation.objects.filter(survey=survey, token_digest=digest(token)).exists():
        return _("this invitation link has already been used")
    return _("this invitation link is not valid for this survey")

"""What every fuzzed request must satisfy, shared by the fuzz tests.

- no 5xx;
- every refusal a 4xx with the API's one error shape, {"error": {"code": str, "field": str, "reason": str}},
  the reason not empty;
- a refused request stores nothing: not a response, a report, a tally count (or an invitation
  spent, once invitation-only surveys exist).
"""

from __future__ import annotations

import json
from contextlib import contextmanager

from django.db import connection, transaction
from django.urls import Resolver404, resolve

from surveys.collection import models
from surveys.errors import CODES

# A valid unmasked CSRF secret (32 alphanumerics): sent as both the csrftoken cookie and the
# X-CSRFToken header, it passes Django's check, so fuzzed posts reach the submission's validation.
CSRF_TOKEN = "fuzzFUZZ" * 4


def stored() -> dict[str, int]:
    """Everything a submission writes, counted, in one query (it runs twice per example)."""
    name = connection.ops.quote_name
    counts = {
        "responses": f"SELECT COUNT(*) FROM {name(models.Response._meta.db_table)}",
        "reports": f"SELECT COUNT(*) FROM {name(models.Report._meta.db_table)}",
        "tally rows": f"SELECT COUNT(*) FROM {name(models.Tally._meta.db_table)}",
        "tally total": f"SELECT COALESCE(SUM({name('count')}), 0) FROM {name(models.Tally._meta.db_table)}",
    }
    # Looked up, not imported: these tests predate invitation-only surveys and must not depend on them.
    invitation = getattr(models, "Invitation", None)
    if invitation is not None and any(field.name == "used" for field in invitation._meta.get_fields()):
        counts["invitations used"] = (f"SELECT COUNT(*) FROM {name(invitation._meta.db_table)} "
                                      f"WHERE {name(invitation._meta.get_field('used').column)}")
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"({query})" for query in counts.values()))
        return dict(zip(counts, map(int, cursor.fetchone()), strict=True))


def assert_error_shape(status: int, content_type: str, content: bytes, request: str) -> dict:
    """A 4xx whose JSON body is {"error": {"code": one of the API's, "field": str, "reason": non-empty str}};
    returns the error."""
    assert 400 <= status < 500, f"{request}: expected a 4xx, got {status}: {content[:300]!r}"
    assert content_type.split(";")[0].strip() == "application/json", (
        f"{request}: a {status} answered with {content_type!r}, not JSON: {content[:300]!r}")
    body = json.loads(content)
    assert isinstance(body, dict) and set(body) == {"error"}, f"{request}: {status} body {body!r}"
    error = body["error"]
    assert isinstance(error, dict) and isinstance(error.get("field"), str), f"{request}: {status} body {body!r}"
    assert error.get("code") in CODES, f"{request}: {status} body {body!r}"
    assert isinstance(error.get("reason"), str) and error["reason"].strip(), f"{request}: {status} body {body!r}"
    return error


def assert_stored_only_if_accepted(status: int, before: dict, after: dict, questions: int, request: str):
    """201: exactly one response with one report per question; anything else: nothing at all."""
    if status == 201:
        assert after["responses"] == before["responses"] + 1, f"{request}: 201 but {before} -> {after}"
        assert after["reports"] == before["reports"] + questions, f"{request}: 201 but {before} -> {after}"
        assert after["tally total"] > before["tally total"], f"{request}: 201 but {before} -> {after}"
    else:
        assert after == before, f"{request}: answered {status} yet stored something: {before} -> {after}"


def api_route(path: str) -> str | None:
    """The URL pattern under /api/ that serves `path` (decoded), or None if no API view does."""
    try:
        match = resolve(path)
    except Resolver404:
        return None
    return match.route if match.route.startswith("api/") else None


@contextmanager
def rolled_back():
    """One example in a savepoint, rolled back after: examples stay independent of each other,
    and on PostgreSQL one failed statement cannot abort the rest of the test's transaction."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)

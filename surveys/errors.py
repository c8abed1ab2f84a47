"""The API's one error shape, {"error": {"code": ..., "field": ..., "reason": ...}}, and everything
that makes it; `code` is stable and machine-readable (docs/api-errors.md lists them), `reason` is
for people, in the request's language.

Services raise refusals (surveys.refusals.Refusal) that carry a code and no HTTP status, so views
need not catch anything: DRF hands every exception to `exception_handler`, which maps each code to
its status here (`STATUS`) and writes the shape (DRF's own errors included, each under its DRF code:
bad JSON, CSRF, throttling with its Retry-After). Addresses under /api/ that no route matches get
the same shape from `not_found`.

A database outage (the server unreachable, a connection lost, SQLite's file unreadable or locked
past its timeout) is no error of the request: 503 with Retry-After, in the same shape, whether
a view met it (`exception_handler`) or anything else before or after the view (`server_error`,
handler500: Django's debug page replaces it in development).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views import defaults
from rest_framework import serializers
from rest_framework.exceptions import APIException, ParseError, Throttled, UnsupportedMediaType
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from . import refusals
from .parsers import TooLarge

logger = logging.getLogger(__name__)

# What a database that is down or unreachable raises (Django's wrappers of every driver's).
OUTAGES = (OperationalError, InterfaceError)
RETRY_AFTER_OUTAGE = 30  # seconds: long enough for a restart or a failover, short for a respondent

# The one place a refusal's code becomes an HTTP status.
STATUS = {
    refusals.INVALID: 400,
    refusals.BAD_PARAMETER: 400,
    refusals.INVITATION_REFUSED: 403,
    refusals.NOT_FOUND: 404,
    refusals.VERSION_CHANGED: 409,
    refusals.KEY_REUSED: 409,
    refusals.UNAVAILABLE: 409,
    refusals.GONE: 410,
}
SERVICE_UNAVAILABLE = "service_unavailable"  # 503: the database is down; try again after Retry-After
SERVER_ERROR = "server_error"  # 500
# DRF's own refusals keep DRF's codes; TooLarge is the project's parser's.
DRF_CODES = ("parse_error", "not_authenticated", "authentication_failed", "permission_denied", "not_found",
             "method_not_allowed", "not_acceptable", "unsupported_media_type", "throttled", TooLarge.default_code)
CODES = tuple(dict.fromkeys((*STATUS, *DRF_CODES, SERVICE_UNAVAILABLE, SERVER_ERROR)))  # every code the API answers


def body(code: str, field: str, reason: str) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "field": field, "reason": reason}}


def status_of(refusal: refusals.Refusal) -> int:
    return STATUS[refusal.code]


def refused(refusal: refusals.Refusal) -> dict[str, dict[str, str]]:
    """A refusal's body."""
    return body(refusal.code, refusal.field, refusal.reason)


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=CODES, help_text="What kind of error: stable, for programs to act on.")
    field = serializers.CharField(help_text="The part of the request at fault (a body field, a query parameter, "
                                            "body, request or survey).")
    reason = serializers.CharField(help_text="Why, for people, in the request's language.")


class ErrorSerializer(serializers.Serializer):
    """The shape of every API refusal (for the OpenAPI schema)."""

    error = ErrorDetailSerializer()


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler (status, headers, rollback), with every body in the one shape."""
    if isinstance(exc, OUTAGES):
        set_rollback()
        return Response(**_unavailable(exc))
    if isinstance(exc, refusals.Refusal):
        set_rollback()
        return Response(refused(exc), status=status_of(exc))
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = _drf_code(exc)
    if isinstance(exc, Throttled):
        response.data = body(code, "request", _("too many submissions from your network; try again in "
                                                "%(seconds)s seconds") % {"seconds": response["Retry-After"]})
    else:
        # The body fails to parse in the view or, first, in the CSRF check, which reads it.
        field = "body" if isinstance(exc, (ParseError, UnsupportedMediaType, TooLarge)) else "request"
        detail = response.data.get("detail", response.data) if isinstance(response.data, dict) else response.data
        response.data = body(code, field, str(detail))
    return response


def _drf_code(exc: Exception) -> str:
    """DRF's code of what its handler answered (it answers Django's Http404 and PermissionDenied as
    its own NotFound and PermissionDenied)."""
    if isinstance(exc, Http404):
        return "not_found"
    if isinstance(exc, PermissionDenied):
        return "permission_denied"
    if not isinstance(exc, APIException):
        return SERVER_ERROR
    codes = exc.get_codes()  # the one a permission named (surveys.accounts.guards.SignedIn), else the default
    return codes if isinstance(codes, str) else exc.default_code


def _unavailable(exc: Exception) -> dict[str, Any]:
    """A database outage's answer (as keyword arguments of a response), logged in one line: the
    driver's words and never the request's body."""
    logger.warning("database unavailable: %s: %s", type(exc).__name__, " ".join(str(exc).split()))
    reason = _("the service is unavailable for a moment; try again in %(seconds)s seconds") % {
        "seconds": RETRY_AFTER_OUTAGE}
    return {"data": body(SERVICE_UNAVAILABLE, "request", reason), "status": 503,
            "headers": {"Retry-After": str(RETRY_AFTER_OUTAGE)}}


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500, called while the exception is being handled: under /api/, the API's shape
    (503 for a database outage, met for instance where the session is read or saved)."""
    if not request.path.startswith("/api/"):
        return defaults.server_error(request)
    exc = sys.exc_info()[1]
    if isinstance(exc, OUTAGES):
        return JsonResponse(**_unavailable(exc))
    return JsonResponse(body(SERVER_ERROR, "request", _("internal server error")), status=500)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: an address under /api/ that no route matches gets the API's error shape; a 404 that names its
    own page (`page`: a results survey the user may not see, surveys.aggregation.access) gets that page."""
    if request.path.startswith("/api/"):
        return JsonResponse(body("not_found", "request", _("not found")), status=404)
    page = getattr(exception, "page", None)
    if page:
        return render(request, page, {"contact": settings.SURVEY_ACCESS_CONTACT}, status=404)
    return defaults.page_not_found(request, exception)

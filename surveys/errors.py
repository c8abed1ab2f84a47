"""The API's one error shape, {"error": {"field": ..., "reason": ...}}, and everything that makes it.

Domain errors subclass `ApiError` (a DRF exception carrying its status), so services raise them
and views need not catch anything: DRF hands every exception to `exception_handler`, which
writes the shape (DRF's own errors included: bad JSON, CSRF, throttling with its Retry-After).
Addresses under /api/ that no route matches get the same shape from `not_found`.

A database outage (the server unreachable, a connection lost, SQLite's file unreadable or locked
past its timeout) is no error of the request: 503 with Retry-After, in the same shape, whether
a view met it (`exception_handler`) or anything else before or after the view (`server_error`,
handler500: Django's debug page replaces it in development).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults
from rest_framework import serializers
from rest_framework.exceptions import APIException, ParseError, Throttled, UnsupportedMediaType
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from .parsers import TooLarge

logger = logging.getLogger(__name__)

# What a database that is down or unreachable raises (Django's wrappers of every driver's).
OUTAGES = (OperationalError, InterfaceError)
RETRY_AFTER_OUTAGE = 30  # seconds: long enough for a restart or a failover, short for a respondent


def body(field: str, reason: str) -> dict[str, dict[str, str]]:
    return {"error": {"field": field, "reason": reason}}


class ErrorDetailSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="The part of the request at fault (a body field, a query parameter, "
                                            "body, request or survey).")
    reason = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    """The shape of every API refusal (for the OpenAPI schema)."""

    error = ErrorDetailSerializer()


class ApiError(APIException):
    """A refusal: HTTP status, the field at fault and why."""

    def __init__(self, status: int, field: str, reason: str):
        # A field may echo a key from the payload: lone surrogates cannot be sent back as UTF-8.
        field = field.encode("utf-8", "backslashreplace").decode("utf-8")
        super().__init__(f"{field}: {reason}")
        self.status_code = status
        self.field, self.reason = field, reason

    @property
    def status(self) -> int:
        return self.status_code

    def as_dict(self) -> dict[str, dict[str, str]]:
        return body(self.field, self.reason)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler (status, headers, rollback), with every body in the one shape."""
    if isinstance(exc, OUTAGES):
        set_rollback()
        return Response(**_unavailable(exc))
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ApiError):
        response.data = exc.as_dict()
    elif isinstance(exc, Throttled):
        response.data = body("request", _("too many submissions from your network; try again in "
                                          "%(seconds)s seconds") % {"seconds": response["Retry-After"]})
    else:
        # The body fails to parse in the view or, first, in the CSRF check, which reads it.
        field = "body" if isinstance(exc, (ParseError, UnsupportedMediaType, TooLarge)) else "request"
        detail = response.data.get("detail", response.data) if isinstance(response.data, dict) else response.data
        response.data = body(field, str(detail))
    return response


def _unavailable(exc: Exception) -> dict[str, Any]:
    """A database outage's answer (as keyword arguments of a response), logged in one line: the
    driver's words and never the request's body."""
    logger.warning("database unavailable: %s: %s", type(exc).__name__, " ".join(str(exc).split()))
    reason = _("the service is unavailable for a moment; try again in %(seconds)s seconds") % {
        "seconds": RETRY_AFTER_OUTAGE}
    return {"data": body("request", reason), "status": 503, "headers": {"Retry-After": str(RETRY_AFTER_OUTAGE)}}


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500, called while the exception is being handled: under /api/, the API's shape
    (503 for a database outage, met for instance where the session is read or saved)."""
    if not request.path.startswith("/api/"):
        return defaults.server_error(request)
    exc = sys.exc_info()[1]
    if isinstance(exc, OUTAGES):
        return JsonResponse(**_unavailable(exc))
    return JsonResponse(body("request", _("internal server error")), status=500)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: an address under /api/ that no route matches gets the API's error shape."""
    if request.path.startswith("/api/"):
        return JsonResponse(body("request", _("not found")), status=404)
    return defaults.page_not_found(request, exception)

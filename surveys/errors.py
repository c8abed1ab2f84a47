"""The API's one error shape, {"error": {"field": ..., "reason": ...}}, and everything that makes it.

Domain errors subclass `ApiError` (a DRF exception carrying its status), so services raise them
and views need not catch anything: DRF hands every exception to `exception_handler`, which
writes the shape (DRF's own errors included: bad JSON, CSRF, throttling with its Retry-After).
Addresses under /api/ that no route matches get the same shape from `not_found`.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults
from rest_framework import serializers
from rest_framework.exceptions import APIException, ParseError, Throttled, UnsupportedMediaType
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .parsers import TooLarge


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


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: an address under /api/ that no route matches gets the API's error shape."""
    if request.path.startswith("/api/"):
        return JsonResponse(body("request", _("not found")), status=404)
    return defaults.page_not_found(request, exception)

"""Respondent API: the public survey definition and the submission of randomized reports."""

from django.shortcuts import get_object_or_404
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.exceptions import ParseError, UnsupportedMediaType
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from surveys.parsers import TooLarge

from . import ratelimit, schema, submission
from .definition import survey_definition
from .models import Survey


class CsrfForEveryone(SessionAuthentication):
    """Enforce CSRF on the anonymous post too (DRF only does so for logged-in users)."""

    def authenticate(self, request):
        self.enforce_csrf(request)
        return super().authenticate(request)


def _published(slug: str) -> Survey:
    return get_object_or_404(Survey.objects.exclude(status=Survey.Status.DRAFT), slug=slug)


@schema.definition
@api_view(["GET"])
@permission_classes([AllowAny])
def survey_detail(request, slug):
    """The survey's questions with each mechanism's exact integer parameters."""
    return Response(survey_definition(_published(slug)))


@schema.submission
@api_view(["POST"])
@authentication_classes([CsrfForEveryone])
@permission_classes([AllowAny])
def submit_response(request, slug):
    """Store one response: a randomized report for every question, nothing else."""
    wait = ratelimit.retry_after(request)
    if wait is not None:
        reason = f"too many submissions from your network; try again in {wait} seconds"
        return Response({"error": {"field": "request", "reason": reason}},
                        status=status.HTTP_429_TOO_MANY_REQUESTS, headers={"Retry-After": str(wait)})
    survey = _published(slug)
    try:
        receipt = submission.submit(survey, request.data)
    except submission.SubmissionError as error:
        return Response(error.as_dict(), status=error.status)
    code = status.HTTP_201_CREATED if receipt.created else status.HTTP_200_OK
    return Response(receipt.as_dict(), status=code)


def exception_handler(exc, context):
    """DRF's handler, with errors in this API's one shape: {"error": {"field", "reason"}}."""
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "detail" in response.data:
        # The body fails to parse in the view or, first, in the CSRF check, which reads it.
        field = "body" if isinstance(exc, (ParseError, UnsupportedMediaType, TooLarge)) else "request"
        response.data = {"error": {"field": field, "reason": str(response.data["detail"])}}
    return response

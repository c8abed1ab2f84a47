"""Respondent API: the public survey definition and the submission of randomized reports.

Refusals are raised by the services as `surveys.refusals.Refusal`s and written by the project's
exception handler (surveys.errors); the submission limit is a DRF throttle (429 with Retry-After).
"""

from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import translation
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.decorators import (
    api_view,
    authentication_classes,
    permission_classes,
    renderer_classes,
    throttle_classes,
)
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from surveys.accounts import two_factor
from surveys.refusals import Refusal

from . import definition, languages, plan, schema, submission
from .models import Survey
from .ratelimit import SubmissionThrottle
from .serializers import ReceiptSerializer, SurveyDefinitionSerializer
from .xlsform import writing

# One instance for every submission: a serializer copies its declared fields once per instance.
RECEIPT = ReceiptSerializer()


class CsrfForEveryone(SessionAuthentication):
    """Enforce CSRF on the anonymous post too (DRF only does so for logged-in users)."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        self.enforce_csrf(request)
        return super().authenticate(request)


class XLSFormRenderer(JSONRenderer):
    """?format=definition: the survey as an XLSForm's sheets (JSON), for staff."""

    format = "definition"


@schema.definition
@api_view(["GET"])
@permission_classes([AllowAny])
@renderer_classes([JSONRenderer, XLSFormRenderer])
def survey_detail(request: Request, slug: str) -> Response:
    """The survey's questions with each mechanism's exact integer parameters, in one of the survey's
    languages: the one ?lang= names (one it offers: anything else is refused, never guessed), else
    the browser's if offered, else its own. Every word of the answer is in that language, the
    explanations too, whatever the interface's language (Accept-Language) would have been.

    ?format=definition (staff only, any survey, drafts too; 404 for anyone else): the survey as an XLSForm's
    sheets, the JSON `import_survey` reads back into the same survey (docs/xlsform.md)."""
    if request.accepted_renderer.format == XLSFormRenderer.format:
        if not (two_factor.admitted(request.user) and request.user.is_staff):
            raise Http404("no such survey")
        return Response(writing.sheets(get_object_or_404(Survey, slug=slug)))
    survey = get_object_or_404(Survey.objects.published(), slug=slug)
    asked = request.query_params.get("lang")
    if asked is not None and asked not in languages.offered(survey):
        raise Refusal("lang", _("this survey is not offered in that language"))
    language = languages.choose(survey, asked, request)
    with translation.override(language):
        found = SurveyDefinitionSerializer(definition.read(survey, language)).data
    return Response(found, headers={"Content-Language": language})


@schema.submission
@api_view(["POST"])
@authentication_classes([CsrfForEveryone])
@permission_classes([AllowAny])
@throttle_classes([SubmissionThrottle])
def submit_response(request: Request, slug: str) -> Response:
    """Store one response: a randomized report for every question, nothing else."""
    found = plan.published(slug)  # the survey and its plan in one query: every submission reads them
    if found is None:
        raise Http404("no such survey")
    survey, current = found
    receipt = submission.submit(survey, request.data, current)
    code = status.HTTP_201_CREATED if receipt.created else status.HTTP_200_OK
    return Response(RECEIPT.to_representation(receipt), status=code)

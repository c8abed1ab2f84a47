"""The privacy statement page, /results/<slug>/statement/: what a survey collects, stores and reveals, in one
printable document for an ethics board (surveys.aggregation.statement). The results pages' access rule: the
survey's researchers and superusers; anyone else gets the same 404 as for a survey that does not exist."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from . import access, refusing, statement
from .views import researchers_only


@researchers_only
@refusing.answered
def statement_page(request: HttpRequest, slug: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    return render(request, "aggregation/statement.html", {"survey": survey, "statement": statement.of(survey),
                                                          "generated": timezone.now()})

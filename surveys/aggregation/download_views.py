"""Researchers' downloads for other software: the labelled Stata and SPSS files and the generated
R and Python scripts. Same access as the other exports (surveys.aggregation.views): assigned
researchers and superusers; anybody else logged in gets 404, anonymous visitors are sent to log in.
"""

from collections.abc import Callable
from typing import BinaryIO

from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils.http import content_disposition_header

from surveys.collection import plan
from surveys.collection.models import Survey
from surveys.collection.plan import SurveyPlan

from . import access, analysis_scripts, exports, labelled_exports, results
from .views import researchers_only

SCRIPT_TYPES = {"R": "text/plain; charset=utf-8", "py": "text/x-python; charset=utf-8"}


@researchers_only
def export_stata(request: HttpRequest, slug: str) -> HttpResponseBase:
    return _labelled(request, slug, labelled_exports.stata_file, "reports.dta", "application/x-stata-dta")


@researchers_only
def export_spss(request: HttpRequest, slug: str) -> HttpResponseBase:
    return _labelled(request, slug, labelled_exports.spss_file, "reports.sav", "application/x-spss-sav")


@researchers_only
def export_script(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    try:
        text = analysis_scripts.script(survey, plan.of(survey), name)
    except results.Unavailable as error:
        return _unavailable(request, survey, error)
    response = HttpResponse(text, content_type=SCRIPT_TYPES[name.rpartition(".")[2]])
    response["Content-Disposition"] = content_disposition_header(True, exports.filename(survey, name))
    return response


def _labelled(request: HttpRequest, slug: str, write: Callable[[Survey, SurveyPlan], BinaryIO], name: str,
              content_type: str) -> HttpResponseBase:
    survey = access.survey_for(request.user, slug)
    try:
        current = plan.of(survey)
    except results.Unavailable as error:
        return _unavailable(request, survey, error)
    # The file is written to a temporary file (bounded memory), then sent from it in blocks.
    return FileResponse(write(survey, current), as_attachment=True, filename=exports.filename(survey, name),
                        content_type=content_type)


def _unavailable(request: HttpRequest, survey: Survey, error: results.Unavailable) -> HttpResponse:
    return render(request, "aggregation/unavailable.html", {"survey": survey, "reason": error.reason}, status=409)

"""Researchers' downloads for other software: the generated R and Python scripts (the labelled Stata
and SPSS files are prepared exports: surveys.aggregation.prepared_views). Same access as the other
exports (surveys.aggregation.views): assigned researchers and superusers; anybody else logged in gets
404, anonymous visitors are sent to log in.
"""


from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header

from surveys.collection import plan
from surveys.collection.models import Survey

from . import access, analysis_scripts, exports, results
from .views import researchers_only

SCRIPT_TYPES = {"R": "text/plain; charset=utf-8", "py": "text/x-python; charset=utf-8"}


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


def _unavailable(request: HttpRequest, survey: Survey, error: results.Unavailable) -> HttpResponse:
    return render(request, "aggregation/unavailable.html", {"survey": survey, "reason": error.reason}, status=409)

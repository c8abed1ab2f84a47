"""Researchers' downloads for other software: the generated R and Python scripts (the labelled Stata
and SPSS files are prepared exports: surveys.aggregation.views.prepared). Same access as the other
exports (surveys.aggregation.views.dashboard): assigned researchers and superusers; anybody else logged in gets
404, anonymous visitors are sent to log in.
"""


from django.http import HttpRequest, HttpResponse
from django.utils.http import content_disposition_header

from surveys.collection import plan

from .. import access, params, refusing
from ..exports import reports as exports
from ..scripts import render as analysis_scripts
from .dashboard import researchers_only

SCRIPT_TYPES = {"R": "text/plain; charset=utf-8", "py": "text/x-python; charset=utf-8"}


@researchers_only
@refusing.answered
def export_script(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    # The page's options (its links carry them): the script's defaults print what that page shows.
    page = params.parse(request.GET, params.FIELDS) if name != "reports.R" else params.DEFAULTS
    text = analysis_scripts.script(survey, plan.of(survey), name, page)
    response = HttpResponse(text, content_type=SCRIPT_TYPES[name.rpartition(".")[2]])
    response["Content-Disposition"] = content_disposition_header(True, exports.filename(survey, name))
    return response

"""The report exports and their codebook, each download a file prepared whole (surveys.aggregation.exports.prepared).
Same access as every export: assigned researchers and superusers (`researchers_only`, `access.survey_for`).

GET .../export/reports.{csv,json,dta,sav} and .../export/synthetic.csv (synthetic respondents,
surveys.aggregation.synthetic.respondents): 200 with the file (Content-Length, `Repr-Digest: sha-256=:...:`,
`X-Export-Rows`, and a Link to its codebook) when a whole, current one is ready or gets ready within
EXPORT_WAIT seconds. Otherwise 202 "being prepared", with Retry-After: for people an HTML page showing
the progress that asks again every REFRESH seconds (a Refresh header, no script); for programs
(Accept: application/json) {"status": "preparing", "rows", "responses", "url"}. Its url, the same with
?export=<id>, answers the file once it is ready. An export no longer kept answers 410, one whose
preparation failed 500: never a part of a file.

GET .../export/codebook.json: the codebook now; with ?export=<id> the codebook of that prepared file,
which describes exactly its responses (their number, the file's bytes and SHA-256, the snapshot's time).
"""

from __future__ import annotations

import base64
import json
from typing import Any, BinaryIO

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import content_disposition_header

from surveys.collection import plan
from surveys.collection.models import Survey

from .. import access, refusing
from ..exports import direct_columns, prepared, release
from ..exports import reports as exports
from ..exports.formats import FORMATS, REPORTS
from ..models import PreparedExport
from ..weighting import weights as weighting
from .dashboard import researchers_only

REFRESH = 2  # seconds between a waiting page's looks
READY = PreparedExport.Status.READY


@researchers_only
@refusing.answered
def export_reports(request: HttpRequest, slug: str, fmt: str) -> HttpResponseBase:
    survey = access.survey_for(request.user, slug)
    current = plan.of(survey)  # a survey whose configuration cannot be read: refused before anything is prepared
    weighting.margins_of(survey)  # and one whose weight column would be raked to stale margins
    # Synthetic rows: no such choice. A bad one is refused before anything is prepared.
    variant = direct_columns.variant(request.GET, survey, current) if fmt in REPORTS else ""
    wanted = request.GET.get("export")
    export = prepared.find(survey, wanted, fmt) if wanted else prepared.request(survey, fmt, variant)
    file = prepared.opened(export) if export is not None and export.status == READY else None
    if export is None or file is None:
        return _not_ready(request, survey, export, FORMATS[fmt].name)
    return _file(survey, export, file)


@researchers_only
@refusing.answered
def export_release(request: HttpRequest, slug: str) -> HttpResponseBase:
    """The shuffled release of the chosen questions' reports (surveys.aggregation.exports.release): a 400 naming
    `questions` before anything is prepared, else as the report exports."""
    survey = access.survey_for(request.user, slug)
    chosen = release.chosen(plan.of(survey), request.GET.getlist(release.PARAMETER))
    wanted = request.GET.get("export")
    export = prepared.find(survey, wanted, "rel") if wanted else prepared.request(survey, "rel",
                                                                                  release.variant(chosen))
    file = prepared.opened(export) if export is not None and export.status == READY else None
    if export is None or file is None:
        return _not_ready(request, survey, export, FORMATS["rel"].name)
    return _file(survey, export, file)


@researchers_only
@refusing.answered
def export_codebook(request: HttpRequest, slug: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    wanted = request.GET.get("export")
    if wanted:
        export = prepared.find(survey, wanted)
        if export is None or export.status != READY:
            return _not_ready(request, survey, export, "codebook.json")
        text = export.codebook
    else:
        text = json.dumps(exports.codebook(survey), indent=2, allow_nan=False)
    response = HttpResponse(text, content_type="application/json")
    response["Content-Disposition"] = content_disposition_header(True, exports.filename(survey, "codebook.json"))
    return response


def _file(survey: Survey, export: PreparedExport, file: BinaryIO) -> FileResponse:
    kind = FORMATS[export.format]
    response = FileResponse(file, as_attachment=True, filename=exports.filename(survey, kind.name),
                            content_type=kind.content_type)  # with its Content-Length
    response["Repr-Digest"] = f"sha-256=:{base64.b64encode(bytes.fromhex(export.sha256)).decode()}:"
    response["X-Export-Rows"] = str(export.rows)
    codebook = reverse("aggregation:export-codebook", args=[survey.slug]) + f"?export={export.pk}"
    response["Link"] = f'<{codebook}>; rel="describedby"; type="application/json"'
    return response


def _not_ready(request: HttpRequest, survey: Survey, export: PreparedExport | None, name: str) -> HttpResponse:
    """202 while it is being prepared, 500 if that failed, 410 if it is no longer kept."""
    preparing = export is not None and export.status == PreparedExport.Status.PREPARING
    status = 202 if preparing else 500 if export is not None and export.status == PreparedExport.Status.FAILED \
        else 410
    state = {202: "preparing", 500: "failed", 410: "gone"}[status]
    url = f"{request.path}?export={export.pk}" if preparing and export is not None else request.path
    response: HttpResponse
    if request.get_preferred_type(["text/html", "application/json"]) == "application/json":
        body: dict[str, Any] = {"status": state, "url": url}
        if preparing and export is not None:
            body.update(rows=export.rows, responses=export.responses, retry_after=REFRESH)
        response = JsonResponse(body, status=status)
    else:
        response = render(request, "aggregation/export_state.html", {
            "survey": survey, "export": export, "state": state, "name": exports.filename(survey, name), "url": url,
            "hours": settings.EXPORT_KEEP_HOURS}, status=status)
        if preparing:
            response["Refresh"] = f"{REFRESH}; url={url}"
    if preparing:
        response["Retry-After"] = str(REFRESH)
    return response

"""Researcher pages and exports: check access, read the parameters, call a service, render.
The report exports and the codebook are in surveys.aggregation.views.prepared (files prepared whole).

Anonymous visitors, and sessions the admin would refuse (surveys.accounts.guards: an account with
two-factor sign-in not verified with a code, or a staff member or superuser who must enrol first),
are sent to log in; a survey the researcher is not assigned to is a 404. Nothing here is cached
anywhere (never_cache): these are a survey's results. Refusals (a survey whose configuration cannot
be read, a bad query parameter) are answered by surveys.aggregation.refusing.
"""

import csv
from collections.abc import Callable, Iterable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.cache import never_cache

from surveys.accounts import guards
from surveys.collection import plan, sharing
from surveys.collection.models import Survey

from .. import access, params, refusing
from ..exports import figure_tables
from ..exports import reports as exports
from ..regression import fitting as modelling
from ..regression import params as model_params
from ..relating import crosstab, pair_counting
from ..relating import section as relating
from ..results import service as results
from ..waves import series as waves
from ..waves import tables as wave_tables
from ..weighting import weights as weighting
from . import margins as margin_page
from . import modelling as model_page
from . import results as results_page
from . import waves as wave_views


def researchers_only(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    return guards.signed_in(never_cache(view))


@researchers_only
def survey_list(request: HttpRequest) -> HttpResponse:
    summaries = results.overview(Survey.objects.visible_to(request.user))
    return render(request, "aggregation/list.html", {"summaries": summaries})


@researchers_only
@refusing.answered
def dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    try:  # the Models section's own parameters are its parser's (model_page.section)
        options, problem = params.parse(model_params.others(request.GET), params.DASHBOARD_FIELDS), None
    except params.BadParameter as error:
        # Still show the results, at the defaults, with the complaint on top.
        options, problem = params.DEFAULTS, error
    found, current = results.survey_results(survey, options), plan.of(survey)
    relate, modelled = relating.context(survey, options, current), model_page.section(survey, request.GET, current)
    across = wave_views.context(request.user, survey, options, found.weights)  # not raked twice
    response = render(request, "aggregation/dashboard.html", {
        **results_page.context(survey, options, found), "problem": problem,
        **relate, "relate_query": options.crosstab_query() if relate["crosstab"] else "",
        **sharing.context(request, survey), **weighting.offer(survey, options), **margin_page.offer(survey),
        **modelled, **across,
    }, status=400 if problem or relate["relate_problem"] or across.get("wave_problem") else modelled["model_status"])
    if relating.counting(relate):
        response["Refresh"] = str(pair_counting.RETRY_AFTER)
    return response


@researchers_only
@refusing.answered
def export_estimates(request: HttpRequest, slug: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    found = results.survey_results(survey, params.parse(request.GET))
    return _csv(survey, "estimates.csv", figure_tables.estimate_rows(found))


@researchers_only
@refusing.answered
def export_crosstab(request: HttpRequest, slug: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    try:
        table = crosstab.crosstab(survey, params.parse(request.GET, params.CROSSTAB_FIELDS))
    except pair_counting.Counting as counting:
        return _counting(request, survey, counting)
    return _csv(survey, f"crosstab-{table.a.key}-{table.b.key}.csv", figure_tables.crosstab_rows(table))


@researchers_only
@refusing.answered
def export_waves(request: HttpRequest, slug: str) -> HttpResponse:
    """The results across waves (the waves API's numbers) as a table; 404 for a survey in no series."""
    survey = access.survey_for(request.user, slug)
    found = waves.series_results(survey, request.user, params.parse(request.GET, params.WAVE_FIELDS))
    if found is None:
        raise Http404("This survey is no wave of a series.")
    return _csv(survey, "waves.csv", wave_tables.rows(found))


@researchers_only
@refusing.answered
def export_model(request: HttpRequest, slug: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    found = modelling.fit(survey, model_params.parse(request.GET))
    level = "" if found.level is None else f"-{found.level}"
    return _csv(survey, f"model-{found.outcome.key}{level}.csv", model_page.rows(found))


def _csv(survey: Survey, name: str, rows: Iterable[list[Any]]) -> HttpResponse:
    """A figures table as a CSV attachment, made whole before it is sent (a refusal is raised before any row)."""
    response = _attachment(HttpResponse(content_type="text/csv; charset=utf-8"), survey, name)
    csv.writer(response).writerows(figure_tables.spreadsheet_safe(rows))
    return response


def _counting(request: HttpRequest, survey: Survey, counting: pair_counting.Counting) -> HttpResponse:
    """202 while the pair is counted in the background, as the prepared exports answer: a page that
    asks again by itself (a Refresh header, no script), or JSON for programs; Retry-After for both."""
    url, wait = request.get_full_path(), counting.retry_after
    response: HttpResponse
    if request.get_preferred_type(["text/html", "application/json"]) == "application/json":
        response = JsonResponse({"status": "counting", "counted": counting.counted, "pairs": counting.pairs,
                                 "retry_after": wait, "url": url}, status=202)
    else:
        response = render(request, "aggregation/counting.html", {"survey": survey, "counting": counting,
                                                                 "url": url}, status=202)
        response["Refresh"] = f"{wait}; url={url}"
    response["Retry-After"] = str(wait)
    return response


def _attachment(response: Any, survey: Survey, name: str) -> Any:
    response["Content-Disposition"] = content_disposition_header(True, exports.filename(survey, name))
    return response

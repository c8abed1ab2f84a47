"""Results across waves on a wave's dashboard (templates/aggregation/_waves.html) and in the API
(GET /api/v1/surveys/<slug>/waves/): check access, read the parameters, call surveys.aggregation.waves.series, render.

Only the waves the researcher may see are shown or compared; a survey in no series has no waves (the dashboard
shows nothing more, the API answers 404).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from django.http import Http404
from django.utils.http import urlencode
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import api_view, permission_classes
from rest_framework.request import Request
from rest_framework.response import Response

from surveys.accounts.guards import SignedIn
from surveys.collection.models import Survey
from surveys.collection.plan import Unavailable
from surveys.errors import ErrorSerializer
from surveys.localized import point
from surveys.refusals import Refusal

from .. import access, params
from ..api import figures as api
from ..api.wave_serializers import SeriesResultsSerializer
from ..charts import trends as trend_charts
from ..results import means
from ..results import service as results
from ..results import too_few as rule
from ..templatetags.results_format import decimals_for, figures, level, plusminus, points
from ..waves import means as wave_means
from ..waves import series as waves
from ..waves import words as wave_words
from ..weighting import weights as weighting


@dataclass(frozen=True)
class ChangeRow:
    """One option's change, as its words need it."""

    label: str
    before: float
    after: float
    change: str  # signed points
    low: str
    high: str
    p_value: str


def signed(value: float) -> str:
    return "–" if not math.isfinite(value) else point(f"{value * 100:+.1f}".replace("-", "−"))


def p_text(value: float) -> str:
    if not math.isfinite(value):
        return "–"
    return point("< 0.001") if value < 0.001 else point(f"= {value:.3f}")


@dataclass(frozen=True)
class MeanChangeRow:
    """A numeric mean's change, as its words need it: every figure with the decimals its interval calls for."""

    before: str
    after: str
    change: str  # signed, in the question's units
    low: str
    high: str
    p_value: str


def mean_change_row(trend: wave_means.MeanTrend) -> MeanChangeRow | None:
    change = trend.change
    if change is None:
        return None
    found = {p.wave: p.mean for p in trend.points}
    value, low, high = change.estimate[0], change.ci_low[0], change.ci_high[0]
    before, after = (figures(found[wave].mean, found[wave].ci_low, found[wave].ci_high)[0]
                     for wave in (trend.first, trend.second))
    digits = decimals_for(low, high, value)
    return MeanChangeRow(before, after, _signed(value, digits), _signed(low, digits), _signed(high, digits),
                         p_text(change.p_value[0]))


def _signed(value: float, digits: int) -> str:
    return "–" if not math.isfinite(value) else point(f"{value:+.{digits}f}".replace("-", "−"))


def change_rows(trend: waves.Trend) -> list[ChangeRow]:
    change = trend.change
    if change is None:
        return []
    found = {p.wave: p for p in trend.points}
    before, after = found[trend.first].estimate.estimate, found[trend.second].estimate.estimate
    return [ChangeRow(label, before[j], after[j], signed(change.estimate[j]), signed(change.ci_low[j]),
                      signed(change.ci_high[j]), p_text(change.p_value[j]))
            for j, label in enumerate(trend.question.options)]


def context(user: Any, survey: Survey, options: params.ResultOptions,
            weights: weighting.Weights | None = None) -> dict[str, Any]:
    """The dashboard's part for a wave of a series (empty for another survey): the trends, each with its chart,
    its change in words and its assumption; a wave number not understood is said, and the default pair shown
    (the last two waves with responses).
    Weighted figures another wave cannot give (no margins, or responses that cannot be raked) are said, and the
    waves shown unweighted. `weights`: this wave's, raked for its estimates already (not raked again)."""
    problem = None
    try:
        made = _weighed_or_said(user, survey, options, weights)
    except params.BadParameter as error:
        problem = error
        made = _weighed_or_said(user, survey, replace(options, first=None, second=None), weights)
    if made is None:
        return {}
    found, unweighted = made
    trends = [(trend, trend_charts.trend_chart(trend), change_rows(trend),
               wave_words.correlation_words(trend) if trend.change else "", too_few(trend, options))
              for trend in found.trends]
    mean_trends = [(trend, mean_change_row(trend), wave_words.mean_words(trend) if trend.change else "",
                    mean_too_few(trend, options)) for trend in found.mean_trends]
    return {"series": found, "trends": trends, "mean_trends": mean_trends, "wave_problem": problem,
            "waves_query": query(found), "waves_unweighted": unweighted}


def too_few(trend: waves.Trend, options: params.ResultOptions) -> str | None:
    """The one rule across waves (`too_few`): the warning when a wave has reports of the question but fewer than
    its planner's respondents at the page's margin and level (Wilson intervals, as the waves'), else None."""
    fixed = replace(options, interval=params.FIXED_DEFAULT, simultaneous=False)
    needed = results.needed(trend.question, fixed)
    few = [p.wave for p in trend.points if 0 < p.n < needed]
    return rule.waves_warning(few, needed, points(options.margin), level(options.confidence))


def mean_too_few(trend: wave_means.MeanTrend, options: params.ResultOptions) -> str | None:
    """The same rule for a numeric mean: its planner's respondents for the margin as a share of its scale."""
    question = trend.question
    needed = means.needed(question, options.margin, options.confidence)
    few = [p.wave for p in trend.points if 0 < p.n < needed]
    return rule.waves_warning(few, needed, plusminus(means.units(question, options.margin)), level(options.confidence))


def _weighed_or_said(user: Any, survey: Survey, options: params.ResultOptions, weights: weighting.Weights | None
                     ) -> tuple[waves.SeriesResults, Refusal | None] | None:
    """The series' results, and why they are unweighted when weighted ones were asked for and cannot be given."""
    try:
        found = waves.series_results(survey, user, options, weights)
    except (params.BadParameter, Unavailable) as refusal:
        if not options.weighted or refusal.field != weighting.FIELD:
            raise
        found = waves.series_results(survey, user, replace(options, weighted=False))
        return None if found is None else (found, refusal)
    return None if found is None else (found, None)


def query(found: waves.SeriesResults) -> str:
    """The parameters of the figures shown, for the CSV and API links that give the same numbers."""
    pair = [] if found.first is None else [("first", found.first), ("second", found.second or 0)]
    weighted = [("weighted", "on")] if found.weighted else []
    return urlencode([("confidence", f"{found.confidence:g}"), *pair, *weighted])


WAVE_PARAMETERS = [
    *(p for p in api.PARAMETERS if p.name == "confidence"),
    OpenApiParameter("weighted", {"type": "boolean"}, description=(
        "Weight each wave to its own population margins (raking; a new wave copies the margins of the wave it was "
        "made from); default false. Every wave with responses needs margins its responses can be raked to (else "
        "400 or 409, naming the wave). The change between two waves that share no respondents adds their "
        "weighted variances; between two that do (the later wave has responses that answered an earlier wave) "
        "it takes the largest variance any correlation allows (correlation unknown).")),
    *(OpenApiParameter(name, {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}, description=(
        f"The wave compared {role}: a wave number of this series among those you may see (default: the "
        f"{default} of the last two with responses, or with fewer than two such waves the {fallback} wave); first "
        f"and second must differ.")) for name, role, default, fallback in (
            ("first", "from", "earlier", "first"), ("second", "to", "later", "last"))),
]


@never_cache
@extend_schema(
    operation_id="survey_waves", tags=["results"], parameters=WAVE_PARAMETERS,
    summary="Each question's estimate in every wave of the survey's series and the change between two waves "
            "(waves the researcher is assigned to, or all for superusers)",
    responses={200: SeriesResultsSerializer, **dict.fromkeys((400, 403, 404, 409, 503), ErrorSerializer)},
)
@api_view(["GET"])
@permission_classes([SignedIn])
def series(request: Request, slug: str) -> Response:
    """Per question compared across waves: every visible wave's debiased estimate with its interval (through
    the composed channel of both layers when the series remembers randomization; weighted to each wave's own
    margins with `weighted`), and the change from `first` to `second` with its interval, z test and the
    assumption its variance makes. 404 for a survey in no series."""
    survey = access.survey_for(request.user, slug)
    found = waves.series_results(survey, request.user, params.parse(request.query_params, params.WAVE_FIELDS))
    if found is None:
        raise Http404("This survey is no wave of a series.")
    return Response(SeriesResultsSerializer(found).data)

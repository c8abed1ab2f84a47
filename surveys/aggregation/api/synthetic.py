"""GET /api/v1/surveys/<slug>/synthetic/: the survey's synthetic respondents
(surveys.aggregation.synthetic.respondents) as a
prepared file, like the dashboard's synthetic.csv: its link and digest with its quality report once whole (200), or
its progress while it is being prepared (202, Retry-After: ask again). Same access as the results: assigned
researchers and superusers; others 404, anonymous 403. A preparation that failed answers 500 "failed" (never a part
of a file); a survey whose configuration cannot be read, 409. No row is a respondent; a figure computed from the
rows is an estimate without its interval.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.request import Request
from rest_framework.response import Response

from surveys.accounts.guards import SignedIn
from surveys.collection import plan
from surveys.errors import ErrorSerializer

from .. import access
from ..exports import prepared
from ..models import PreparedExport
from ..synthetic import respondents as synthetic
from ..views.prepared import REFRESH
from ..weighting import weights as weighting

Status = PreparedExport.Status


class MarginalSerializer(serializers.Serializer):
    variables = serializers.ListField(child=serializers.CharField(), help_text=(
        "The marginal's one or two variables: a question's key, or key[j] for option j of a multi-select of more "
        "than 4 options."))
    n = serializers.IntegerField(help_text="The responses behind its debiased estimate.")
    cell = serializers.ListField(child=serializers.IntegerField(), help_text="Its worst cell's counters' indexes.")
    synthetic = serializers.FloatField(help_text="The rows' share in that cell.")
    estimate = serializers.FloatField(help_text="The debiased estimate of that cell (weighted rows: the weighted one).")
    std_error = serializers.FloatField(help_text="That estimate's standard error (weighted rows: by linearization "
                                                 "through the raking).")
    ratio = serializers.FloatField(help_text="|synthetic - estimate| in standard errors.")


class QualitySerializer(serializers.Serializer):
    largest = serializers.FloatField(
        help_text="The largest difference of any 1- or 2-way marginal, in standard errors.")
    worst = serializers.ListField(child=serializers.CharField(), allow_null=True,
                                  help_text="The variables of the marginal where it is (null without any).")
    warnings = serializers.ListField(child=serializers.CharField(), help_text=(
        "Where the rows cannot be trusted: too few responses for the planner's rule, a pair never answered together, "
        "a question with no debiased table to compare; in the request's language (the codebook has each one's code "
        "and values)."))
    marginals = MarginalSerializer(many=True)
    weighted = serializers.BooleanField(allow_null=True, help_text=(
        "Whether the rows are weighted to the survey's population margins (each response's reports counted with its "
        "raking weight, so the rows' shares are the weighted figures'); null: the survey has no margins."))
    not_weighted = serializers.CharField(allow_null=True, help_text=(
        "Why a survey with margins has rows that are not weighted (its responses cannot be weighted to them), in "
        "the request's language; null otherwise."))


class SyntheticSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="ready (200), preparing (202) or failed (500).")
    url = serializers.CharField(help_text="The file (synthetic.csv), or where to ask again while it is prepared.")
    rows = serializers.IntegerField(help_text="Rows written (ready: the file's, one per response).")
    responses = serializers.IntegerField(allow_null=True, help_text="The responses it is made from.")
    sha256 = serializers.CharField(required=False, help_text="The file's SHA-256 (ready).")
    codebook = serializers.CharField(required=False, help_text="The file's codebook, with the quality report (ready).")
    quality = QualitySerializer(required=False, help_text="The quality report (ready).")


@never_cache
@extend_schema(
    operation_id="survey_synthetic", tags=["results"],
    summary="Synthetic respondents: the prepared CSV's link and its quality report (assigned researchers and "
            "superusers)",
    responses={200: SyntheticSerializer, 202: SyntheticSerializer, 500: SyntheticSerializer,
               **dict.fromkeys((403, 404, 409, 503), ErrorSerializer)},
)
@api_view(["GET"])
@permission_classes([SignedIn])
def synthetic_data(request: Request, slug: str) -> Response:
    """The survey's synthetic.csv, prepared whole: its link and quality report, or its progress."""
    survey = access.survey_for(request.user, slug)
    plan.of(survey)  # a configuration that cannot be read: 409 before anything is prepared
    weighting.margins_of(survey)
    export = prepared.request(survey, "syn")
    file = reverse("aggregation:export-synthetic-csv", args=[survey.slug])
    if export is None:  # removed while waited for (a purge): nothing to prepare from now
        return Response({"status": "failed", "url": file, "rows": 0, "responses": None}, status=500)
    body: dict[str, Any] = {"status": str(export.status), "url": f"{file}?export={export.pk}", "rows": export.rows,
                            "responses": export.responses}
    if export.status == Status.READY:
        codebook = reverse("aggregation:export-codebook", args=[survey.slug]) + f"?export={export.pk}"
        body.update(sha256=export.sha256, codebook=codebook, quality=synthetic.stated(export))
        return Response(body)
    if export.status == Status.PREPARING:
        return Response(body, status=202, headers={"Retry-After": str(REFRESH)})
    return Response(body, status=500)

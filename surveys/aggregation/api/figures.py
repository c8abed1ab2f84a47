"""Results API: the debiased estimates of one survey, as on its dashboard, and the cross-tab of two
of its questions.

Neither is ever cached (Cache-Control: private, no-store, like the dashboard): they are a survey's
results. Anonymous requests get 403 with the API's error shape (session authentication sends no
WWW-Authenticate challenge, so DRF answers 403, not 401), and so does a session the admin would
refuse (surveys.accounts.guards.SignedIn: the second factor); a researcher not assigned to
the survey gets 404; bad query parameters get 400 naming the parameter; a survey whose stored
configuration cannot be read gets 409. A cross-tab whose pair is being counted in the background
(surveys.aggregation.relating.pair_counting) is 202 {"status": "counting", ...} with Retry-After.
"""

from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiParameter, OpenApiTypes, extend_schema
from rest_framework.decorators import api_view, permission_classes
from rest_framework.request import Request
from rest_framework.response import Response

from surveys.accounts.guards import SignedIn
from surveys.errors import ErrorSerializer

from .. import access, params
from ..regression import fitting as modelling
from ..regression import params as model_params
from ..relating import crosstab as crosstabs
from ..relating import pair_counting
from ..results import service as results
from .crosstab_serializers import CountingSerializer, CrossTabSerializer
from .model_serializers import ModelSerializer
from .serializers import SurveyEstimatesSerializer

PARAMETERS = [
    OpenApiParameter("weighted", OpenApiTypes.BOOL, description=(
        "Weight the figures to the survey's population margins (raking; see weights in the answer); default false. "
        "Needs margins entered for its direct questions (else 400); weighted intervals are Wilson at each "
        "option's effective sample size.")),
    OpenApiParameter("confidence", OpenApiTypes.DOUBLE, description=(
        f"Confidence level of the intervals, {params.CONFIDENCE_MIN} to {params.CONFIDENCE_MAX}; default 0.95.")),
    OpenApiParameter("interval", OpenApiTypes.STR, enum=list(params.INTERVAL_CHOICES), description=(
        "anytime: confidence sequences, valid however often you look (default while the survey is open); "
        "wilson: Wilson score with continuity correction (default once closed); exact: Clopper-Pearson.")),
    OpenApiParameter("simultaneous", OpenApiTypes.BOOL, description=(
        "Bonferroni: each of a question's k intervals at 1 - (1 - confidence) / k, so all hold together; "
        "default false.")),
    OpenApiParameter("margin", OpenApiTypes.DOUBLE, description=(
        f"Planner target half-width, {params.MARGIN_MIN} to {params.MARGIN_MAX}; default 0.05. It sets the "
        "respondents needed, never the anytime intervals (their planned size is the survey's, fixed when it "
        "opened).")),
]
# The estimates' own words for confidence: there it meets the anytime intervals, whose level it does not set.
ESTIMATES_CONFIDENCE = OpenApiParameter("confidence", OpenApiTypes.DOUBLE, description=(
    f"Confidence level of the fixed-n intervals and the planner, {params.CONFIDENCE_MIN} to {params.CONFIDENCE_MAX}; "
    "default 0.95. The anytime intervals keep the survey's planned confidence, fixed when it opened, whatever this "
    "says (a level chosen after looking voids their guarantee): the answer gives theirs as sequence_confidence, and "
    "sequence_note says why when the two differ. Not an error: the planner and every fixed-n interval (an ordinal "
    "mean score's) still follow it."))
ESTIMATES_PARAMETERS = [ESTIMATES_CONFIDENCE if p.name == "confidence" else p for p in PARAMETERS]


@never_cache
@extend_schema(
    operation_id="survey_estimates", tags=["results"], parameters=ESTIMATES_PARAMETERS,
    summary="Debiased estimates with confidence intervals (assigned researchers and superusers)",
    responses={200: SurveyEstimatesSerializer, **dict.fromkeys((400, 403, 404, 409, 503), ErrorSerializer)},
)
@api_view(["GET"])
@permission_classes([SignedIn])
def estimates(request: Request, slug: str) -> Response:
    """Per question: counts of randomized reports, n, unbiased estimates, standard errors,
    intervals, post-processed (clipped, simplex-projected) estimates and the planner."""
    survey = access.survey_for(request.user, slug)
    found = results.survey_results(survey, params.parse(request.query_params))
    return Response(SurveyEstimatesSerializer(found).data)


QUESTION_PARAMETERS = [
    OpenApiParameter(name, {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}, required=True, description=(
        f"The id of question {name.upper()}, one of this survey's questions (ids are in the estimates' questions); "
        "a and b must differ.")) for name in ("a", "b")
]


@never_cache
@extend_schema(
    operation_id="survey_crosstab", tags=["results"],
    parameters=[*QUESTION_PARAMETERS,
                *(p for p in PARAMETERS if p.name in params.CROSSTAB_FIELDS and p.name != "weighted"),
                OpenApiParameter("weighted", OpenApiTypes.BOOL, description=(
                    "Weight the table to the survey's population margins (raking; see weights in the answer); "
                    "default false. Needs margins (else 400); past DJANGO_RELATE_NOW_RESPONSES responses times "
                    "the questions read, 409. Joint cells have score intervals and conditional fractions Fieller "
                    "intervals, each at its own effective sample size; the independence test is Rao and Scott's F "
                    "on the weighted reports; n and the effect size stay those of the unweighted reports."))],
    summary="Two questions counted together: joint table, conditional fractions, independence test, planner "
            "(assigned researchers and superusers)",
    responses={200: CrossTabSerializer, 202: CountingSerializer,
               **dict.fromkeys((400, 403, 404, 409, 503), ErrorSerializer)},
)
@api_view(["GET"])
@permission_classes([SignedIn])
def crosstab(request: Request, slug: str) -> Response:
    """The co-occurrence counts of A's and B's reports over the responses with both, the debiased
    joint fractions with standard errors and intervals, P(B | A) and P(A | B) with Fieller's
    intervals, the chi-square test of independence with the debiased Cramér's V, and the planner
    for a joint cell. Computed from the stored reports: no extra privacy cost. The first time a pair
    of a large survey is asked for, it is counted in the background: 202 with the progress and
    Retry-After; ask again."""
    survey = access.survey_for(request.user, slug)
    try:
        found = crosstabs.crosstab(survey, params.parse(request.query_params, params.CROSSTAB_FIELDS))
    except pair_counting.Counting as counting:
        return Response(CountingSerializer(counting).data, status=202,
                        headers={"Retry-After": str(counting.retry_after)})
    return Response(CrossTabSerializer(found).data)


MODEL_PARAMETERS = [
    OpenApiParameter("outcome", {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}, description=(
        "The id of the question modelled: a randomized yes/no or k-option question (logistic) or a randomized "
        "numeric mean (linear). Required unless a formula names it.")),
    OpenApiParameter("formula", {"type": "string", "maxLength": model_params.FORMULA_LENGTH}, description=(
        "Instead of outcome, covariates, reference and square: the model in R's formula syntax over the questions' "
        "keys, such as q1 ~ q3 + q4 + I((q4/10)^2) + q3:q4 + C(q2, Treatment(1)). A single choice is a category "
        "of its option indexes (against the first, or the one Treatment names), a direct number its value. Only "
        "I(), C() with Treatment(), arithmetic, powers and interactions; anything else is a 400 naming formula.")),
    OpenApiParameter("level", {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}, description=(
        "k options: the option modelled, 0-based (yes/no: yes by default).")),
    OpenApiParameter("covariates", OpenApiTypes.STR, description=(
        "Comma-separated ids of questions asked directly: a single choice enters as indicators against its "
        "reference option, a direct number as a number.")),
    OpenApiParameter("reference", OpenApiTypes.STR, many=True, description=(
        "<question id>:<option index>, a single-choice covariate's reference option (default its first).")),
    OpenApiParameter("square", OpenApiTypes.STR, description="Comma-separated ids of numeric covariates also "
                                                             "entered squared."),
    OpenApiParameter("se", OpenApiTypes.STR, enum=["observed", "opg"], description=(
        "Unweighted logistic models: observed information (default) or the outer product of scores (what R's rr "
        "prints). Weighted fits take the sandwich, linear ones HC1.")),
    OpenApiParameter("odds_ratio", OpenApiTypes.DOUBLE, description=(
        f"The odds ratio the power calculation is for, {model_params.ODDS_RATIO_MIN} to "
        f"{model_params.ODDS_RATIO_MAX}; default {model_params.DEFAULT_ODDS_RATIO:g}.")),
    *(p for p in PARAMETERS if p.name in ("weighted", "confidence", "margin")),
]


@never_cache
@extend_schema(
    operation_id="survey_model", tags=["results"], parameters=MODEL_PARAMETERS,
    summary="A randomized question explained by the direct ones: logistic or linear regression (assigned "
            "researchers and superusers)",
    responses={200: ModelSerializer, **dict.fromkeys((400, 403, 404, 409, 503), ErrorSerializer)},
)
@api_view(["GET"])
@permission_classes([SignedIn])
def model(request: Request, slug: str) -> Response:
    """Coefficients with standard errors and intervals, odds ratios, the test against the intercept-only model
    and the power to detect an odds ratio, fitted on the stored reports of the responses that answer every
    question used (no extra privacy cost). 409 with too few respondents (the early-results rule of the
    outcome's estimates), when the data separate or the fit does not converge."""
    survey = access.survey_for(request.user, slug)
    found = modelling.fit(survey, model_params.parse(request.query_params))
    return Response(ModelSerializer(found).data)

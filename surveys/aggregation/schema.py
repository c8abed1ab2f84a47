"""The OpenAPI 3 schema at /api/v1/schema/ (drf-spectacular) and the results API's shapes.

The schema is public, as the respondent API it describes is. The respondent endpoints
are described in surveys/collection/schema.py; what lives here is only
what the generator needs besides: the response shapes of the estimates endpoint and a
description of the collection app's CSRF-for-everyone authentication.
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import inline_serializer
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework import serializers

INFO = {
    "TITLE": "Private surveys API",
    "DESCRIPTION": (
        "Local-differential-privacy surveys. Respondents' browsers randomize every answer and post "
        "only randomized reports; researchers read debiased estimates. Errors have one shape: "
        '{"error": {"field": ..., "reason": ...}}.'
    ),
    "VERSION": "1",
}

schema_view = SpectacularJSONAPIView.as_view(custom_settings=INFO)


class CsrfForEveryoneScheme(OpenApiAuthenticationExtension):
    """Posting reports needs Django's CSRF token (cookie + header), even when anonymous."""

    target_class = "surveys.collection.api.CsrfForEveryone"
    name = "csrfToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey", "in": "header", "name": "X-CSRFToken",
            "description": "The csrftoken cookie's value; the respondent page sets the cookie.",
        }


def _nullable_float(**kwargs):
    return serializers.FloatField(allow_null=True, **kwargs)


ERROR = inline_serializer("Error", fields={
    "error": inline_serializer("ErrorDetail", fields={
        "field": serializers.CharField(help_text="The query parameter or part of the request at fault."),
        "reason": serializers.CharField(),
    }),
})

ESTIMATES = inline_serializer("SurveyEstimates", fields={
    "survey": inline_serializer("EstimatedSurvey", fields={
        "slug": serializers.SlugField(),
        "title": serializers.CharField(),
        "status": serializers.ChoiceField(choices=["draft", "open", "closed"]),
        "epsilon_total": serializers.FloatField(help_text="Sum of the questions' effective epsilons."),
        "epsilon_budget": serializers.FloatField(),
        "responses": serializers.IntegerField(),
    }),
    "confidence": serializers.FloatField(),
    "interval": serializers.ChoiceField(choices=["wilson", "exact"]),
    "simultaneous": serializers.BooleanField(),
    "questions": inline_serializer("QuestionEstimates", many=True, fields={
        "id": serializers.IntegerField(),
        "key": serializers.CharField(help_text="q<order>, as in the exports."),
        "order": serializers.IntegerField(),
        "text": serializers.CharField(),
        "kind": serializers.ChoiceField(choices=["yes_no", "single_choice"]),
        "n": serializers.IntegerField(help_text="Number of reports."),
        "mechanism": inline_serializer("EstimateMechanism", fields={
            "name": serializers.ChoiceField(choices=["qrr", "bitflip", "krr", "sue", "oue"]),
            "label": serializers.CharField(),
            "parameters": serializers.DictField(help_text="The configured parameters (q or epsilon, k)."),
            "effective_epsilon": serializers.FloatField(),
            "q_equivalent": _nullable_float(help_text="Yes/no questions: q = tanh(epsilon / 2)."),
            "p": serializers.FloatField(help_text="P(report = truth), per bit for unary encodings."),
            "q": serializers.FloatField(help_text="P(report = a given other option), per bit for unary."),
        }),
        "counts_are": serializers.CharField(),
        "interval_level": serializers.FloatField(help_text="Each interval's level (Bonferroni-adjusted)."),
        "options": inline_serializer("OptionEstimate", many=True, fields={
            "index": serializers.IntegerField(),
            "label": serializers.CharField(),
            "count": serializers.IntegerField(help_text="Randomized reports (or 1-bits) for this option."),
            "estimate": _nullable_float(help_text="Unbiased; may lie outside [0, 1]. null without reports."),
            "std_error": _nullable_float(),
            "ci_low": serializers.FloatField(),
            "ci_high": serializers.FloatField(),
            "post_processed": inline_serializer("PostProcessedEstimate", fields={
                "clipped": _nullable_float(help_text="Clipped to [0, 1]; no privacy cost."),
                "simplex": _nullable_float(help_text="Projected onto the simplex; no privacy cost."),
            }),
        }),
        "planner": inline_serializer("Planner", fields={
            "margin_now": _nullable_float(help_text="Worst-case half-width reached; null without reports."),
            "margin": serializers.FloatField(),
            "respondents_needed": serializers.IntegerField(),
            "still_needed": serializers.IntegerField(),
        }),
    }),
})

"""OpenAPI descriptions of the respondent endpoints (drf-spectacular), kept out of the views."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers

definition = extend_schema(
    operation_id="survey_definition", tags=["respondents"],
    summary="A published survey's questions with each mechanism's exact integer parameters",
    responses={
        200: inline_serializer("SurveyDefinition", fields={
            "slug": serializers.SlugField(), "title": serializers.CharField(),
            "description": serializers.CharField(), "accepting_responses": serializers.BooleanField(),
            "version": serializers.CharField(help_text="Mechanism version; send it back with the reports."),
            "epsilon_total": serializers.FloatField(), "epsilon_budget": serializers.FloatField(),
            "questions": inline_serializer("QuestionDefinition", many=True, fields={
                "id": serializers.IntegerField(), "order": serializers.IntegerField(),
                "text": serializers.CharField(),
                "kind": serializers.ChoiceField(choices=["yes_no", "single_choice"]),
                "options": serializers.ListField(child=serializers.CharField()),
                "report": serializers.ChoiceField(choices=["index", "bits"],
                                                  help_text="index: an option index; bits: one bit per option."),
                "mechanism": inline_serializer("MechanismSummary", fields={
                    "mechanism": serializers.CharField(help_text="qrr, bitflip, krr, sue or oue."),
                    "q": serializers.CharField(required=False, help_text="q-RR only, as a decimal."),
                    "epsilon": serializers.FloatField(required=False, help_text="All but q-RR: configured."),
                    "k": serializers.IntegerField(required=False),
                    "label": serializers.CharField(), "effective_epsilon": serializers.FloatField(),
                    "q_equivalent": serializers.FloatField(allow_null=True),
                    "p": serializers.FloatField(), "q_other": serializers.FloatField(),
                    "sampler": inline_serializer("Sampler", fields={
                        "kind": serializers.CharField(help_text="grr (keep, other) or unary (one_if_*)."),
                        "k": serializers.IntegerField(), "modulus": serializers.IntegerField(),
                        "keep": serializers.IntegerField(required=False),
                        "other": serializers.IntegerField(required=False),
                        "one_if_true": serializers.IntegerField(required=False),
                        "one_if_false": serializers.IntegerField(required=False),
                    }),
                    "deniability": inline_serializer("Deniability", fields={
                        "epsilon": serializers.FloatField(), "odds": serializers.FloatField(),
                        "best_guess": serializers.FloatField(), "text": serializers.CharField(),
                    }),
                }),
            }),
        }),
        404: {"type": "object", "description": '{"error": {"field", "reason"}}', "properties": {"error": {
            "type": "object", "properties": {"field": {"type": "string"}, "reason": {"type": "string"}}}}},
    },
)

submission = extend_schema(
    operation_id="submit_response", tags=["respondents"],
    summary="Store one response: a randomized report for every question (retries with the same key are idempotent)",
    request=inline_serializer("Submission", fields={
        "version": serializers.CharField(help_text="The survey definition's version."),
        "key": serializers.UUIDField(help_text="Random per submission, made by the browser; a retry reuses it."),
        "reports": serializers.DictField(
            help_text="Question id -> report: an option index, or for unary encodings a list of k bits.",
            child=serializers.JSONField()),
        "invitation": serializers.CharField(
            required=False, max_length=128,
            help_text="Invitation-only surveys (and only those): the token from the link's fragment."),
    }),
    description="201: stored. 200: a retry with the same key and reports (nothing stored twice). "
                "400: malformed, naming the field. 403: missing CSRF token, or a missing, used or "
                "unknown invitation. 404: no such survey. 413: body over the upload limit. "
                "429: too many submissions from one network. "
                "409: outdated version, or the key reused for other reports. 410: not accepting responses.",
    responses={
        **dict.fromkeys((200, 201), inline_serializer("Receipt", fields={
            "id": serializers.UUIDField(), "reports": serializers.DictField(child=serializers.JSONField()),
        })),
        **dict.fromkeys((400, 403, 404, 409, 410, 413, 415, 429), {
            "type": "object", "description": '{"error": {"field", "reason"}}', "properties": {"error": {
                "type": "object", "properties": {"field": {"type": "string"}, "reason": {"type": "string"}}}}}),
    },
)

"""OpenAPI descriptions of the respondent endpoints (drf-spectacular), kept out of the views."""

from drf_spectacular.utils import extend_schema

from surveys.errors import ErrorSerializer

from .serializers import ReceiptSerializer, SubmissionSerializer, SurveyDefinitionSerializer

definition = extend_schema(
    operation_id="survey_definition", tags=["respondents"],
    summary="A published survey's questions with each mechanism's exact integer parameters",
    responses={200: SurveyDefinitionSerializer, **dict.fromkeys((400, 404, 503), ErrorSerializer)},
)

submission = extend_schema(
    operation_id="submit_response", tags=["respondents"],
    summary="Store one response: a randomized report for every question (retries with the same key are idempotent)",
    request=SubmissionSerializer,
    description="201: stored. 200: a retry with the same key and reports (nothing stored twice). "
                "400: malformed, naming the field (code invalid, parse_error). 403: missing CSRF token "
                "(permission_denied), or a missing, used or unknown invitation (invitation_refused). "
                "404: no such survey (not_found). 413: body over the upload limit (too_large). "
                "429: too many submissions from one network (throttled). "
                "409: outdated version (version_changed), the key reused for other reports (key_reused), "
                "or an unreadable configuration (unavailable). 410: not accepting responses (gone). "
                "503: the database is unavailable (service_unavailable; Retry-After: try again then).",
    responses={
        200: ReceiptSerializer, 201: ReceiptSerializer,
        **dict.fromkeys((400, 403, 404, 409, 410, 413, 415, 429, 503), ErrorSerializer),
    },
)

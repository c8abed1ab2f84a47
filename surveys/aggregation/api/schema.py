"""The OpenAPI 3 schema at /api/v1/schema/ (drf-spectacular).

The schema is public, as the respondent API it describes is. Each endpoint's shapes come from
the serializers that write its JSON; what lives here is only what the generator needs besides:
the API's description and the collection app's CSRF-for-everyone authentication.
"""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.views import SpectacularJSONAPIView

INFO = {
    "TITLE": "Private surveys API",
    "DESCRIPTION": (
        "Local-differential-privacy surveys. Respondents' browsers randomize every answer and post "
        "only randomized reports; researchers read debiased estimates. Errors have one shape: "
        '{"error": {"code": ..., "field": ..., "reason": ...}}, where code is stable and machine-readable '
        "(the Error component lists them; docs/api-errors.md says what each means)."
    ),
    "VERSION": "1",
}

schema_view = SpectacularJSONAPIView.as_view(custom_settings=INFO)


class CsrfForEveryoneScheme(OpenApiAuthenticationExtension):
    """Posting reports needs Django's CSRF token (cookie + header), even when anonymous."""

    target_class = "surveys.collection.api.CsrfForEveryone"
    name = "csrfToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey", "in": "header", "name": "X-CSRFToken",
            "description": "The csrftoken cookie's value; the respondent page sets the cookie.",
        }

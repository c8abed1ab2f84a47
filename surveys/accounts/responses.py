"""What a login page answers when its form was refused by the lockout: 429 with Retry-After."""

from __future__ import annotations

from django.http import HttpResponse


def with_lockout_status(response: HttpResponse) -> HttpResponse:
    """`response` (an unrendered TemplateResponse with the form) as 429 if the form locked out."""
    form = (getattr(response, "context_data", None) or {}).get("form")
    wait = getattr(form, "retry_after", None)
    if wait is not None:
        response.status_code = 429
        response["Retry-After"] = str(wait)
    return response

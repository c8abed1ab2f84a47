"""What the login pages answer besides the form: 429 with Retry-After when the lockout refused the
form, and the way to the enrolment page for an account that must enrol first."""

from __future__ import annotations

from django.http import HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import urlencode


def with_lockout_status(response: HttpResponse) -> HttpResponse:
    """`response` (an unrendered TemplateResponse with the form) as 429 if the form locked out."""
    form = (getattr(response, "context_data", None) or {}).get("form")
    wait = getattr(form, "retry_after", None)
    if wait is not None:
        response.status_code = 429
        response["Retry-After"] = str(wait)
    return response


def to_enrolment(after: str) -> HttpResponseRedirect:
    """To the enrolment page, and on to `after` once enrolled."""
    return HttpResponseRedirect(f"{reverse('two-factor')}?{urlencode({'next': after})}")

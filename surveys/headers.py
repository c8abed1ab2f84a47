"""Security headers Django 5.2 does not send itself: a strict Content-Security-Policy.

No inline scripts or styles anywhere; data reaches JavaScript through json_script
(which is a data block, not executed), so script-src 'self' is enough.
"""

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


def no_referrer(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Survey pages tell the browser to send no Referer anywhere. Marked on the request, so
    that the middleware applies it to whatever answers, including a 404 the view raised."""
    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        request.referrer_policy = "no-referrer"  # type: ignore[attr-defined]  # read by the middleware
        return view(request, *args, **kwargs)
    return wrapped


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        if hasattr(request, "referrer_policy"):
            response.headers["Referrer-Policy"] = request.referrer_policy
        return response

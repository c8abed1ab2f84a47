"""Security headers Django 5.2 does not send itself: a strict Content-Security-Policy.

No inline scripts or styles anywhere; data reaches JavaScript through json_script
(which is a data block, not executed), so script-src 'self' is enough.
"""

import functools

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


def no_referrer(view):
    """Survey pages tell the browser to send no Referer anywhere: a survey URL may carry a token."""
    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response["Referrer-Policy"] = "no-referrer"
        return response
    return wrapped


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response

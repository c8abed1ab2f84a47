"""The rule of every staff and researcher page (two_factor.admitted: signed in, active, the second
factor satisfied as the admin requires), as a view decorator and as the results API's permission.
A session it refuses gets what an anonymous visitor gets there: a page sends it to log in (where
it can sign in with its code, or is sent to enrol), the API answers 403 with the same error. The
staff preview, which answers 404 to anybody else, applies the same function itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import user_passes_test
from django.http import HttpResponseBase
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import BasePermission

from . import two_factor

View = Callable[..., HttpResponseBase]


def signed_in(view: View) -> View:
    """login_required, with the second factor: a refused session is sent to settings.LOGIN_URL."""
    return user_passes_test(two_factor.admitted)(view)


class SignedIn(BasePermission):
    """IsAuthenticated, with the second factor. A refused session gets the very error an anonymous
    request gets (session authentication has no challenge to send, so 403)."""

    message = NotAuthenticated.default_detail
    code = NotAuthenticated.default_code

    def has_permission(self, request: Any, view: Any) -> bool:
        return two_factor.admitted(request.user)

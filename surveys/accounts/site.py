"""The admin site: Django's, with the throttled login form that asks for the second factor, and
a session let in only by the rule of every staff and researcher page (two_factor.admitted)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from . import two_factor
from .forms import AdminSignInForm
from .responses import to_enrolment, with_lockout_status


class AdminSite(admin.AdminSite):
    login_form = AdminSignInForm
    login_template = "accounts/admin_login.html"

    def has_permission(self, request: HttpRequest) -> bool:
        return super().has_permission(request) and two_factor.admitted(request.user)

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        """A signed-in staff member who must enrol first is sent to the enrolment page."""
        if request.method == "GET" and request.user.is_staff and two_factor.must_enrol(request.user):
            return to_enrolment(request.GET.get(REDIRECT_FIELD_NAME, reverse("admin:index", current_app=self.name)))
        return with_lockout_status(super().login(request, extra_context))

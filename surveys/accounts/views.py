"""The researchers' login page (throttled, with the second factor) and the staff's two-factor
enrolment page."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth.views import LoginView, redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache

from . import two_factor
from .forms import SignInForm
from .responses import with_lockout_status


class SignInView(LoginView):
    authentication_form = SignInForm
    redirect_authenticated_user = True

    def form_invalid(self, form: Any) -> HttpResponse:
        return with_lockout_status(super().form_invalid(form))


class CodeForm(forms.Form):
    code = forms.CharField(label=gettext_lazy("Code from the app"), max_length=10, widget=forms.TextInput(
        attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}))


@never_cache
def two_factor_page(request: HttpRequest) -> HttpResponse:
    """GET: the QR code and secret of a new device, and a form for its first code; POST: confirm it."""
    user = request.user
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path(), reverse("admin:login"))
    if not (user.is_active and user.is_staff):
        raise Http404
    context: dict[str, Any] = {**admin.site.each_context(request), "title": _("Two-factor sign-in")}
    if two_factor.enrolled(user):
        return render(request, "accounts/two_factor.html", {**context, "enrolled": True})
    device = two_factor.pending_device(user)
    form = CodeForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        if two_factor.confirm(request, device, form.cleaned_data["code"]):
            messages.success(request, _("Two-factor sign-in is on: from now on you sign in with a code."))
            return HttpResponseRedirect(_next(request))
        form.add_error("code", _("That code is not right: enter the code the app shows now."))
    return render(request, "accounts/two_factor.html", {
        **context, "form": form, "qr": two_factor.qr_svg(device), "secret": two_factor.secret(device),
        "next": _next(request)})


def _next(request: HttpRequest) -> str:
    wanted = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, "")
    safe = url_has_allowed_host_and_scheme(wanted, {request.get_host()}, require_https=request.is_secure())
    return wanted if safe else reverse("admin:index")

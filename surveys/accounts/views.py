"""The researchers' login page (throttled, with the second factor) and the staff's two-factor
enrolment page."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth.views import LoginView, redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from . import two_factor
from .forms import EnrolmentForm, SignInForm
from .responses import to_enrolment, with_lockout_status

TEMPLATE = "accounts/two_factor.html"


class SignInView(LoginView):
    """Django's login page. A signed-in session that the pages refuse (two_factor.admitted) is not
    sent on, which would bring it straight back here: it gets the form, to sign in with the code,
    or, if the account must enrol first, the enrolment page."""

    authentication_form = SignInForm
    redirect_authenticated_user = True

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        user = request.user
        if user.is_authenticated and not two_factor.admitted(user):
            if request.method == "GET" and two_factor.must_enrol(user):
                return to_enrolment(self.get_redirect_url() or settings.LOGIN_REDIRECT_URL)
            self.redirect_authenticated_user = False
        return super().dispatch(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        return with_lockout_status(super().form_invalid(form))


@never_cache
def two_factor_page(request: HttpRequest) -> HttpResponse:
    """GET: a new key (QR code and text), shown this once; POST: confirm it with the password and a code."""
    user = request.user
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path(), reverse("admin:login"))
    if not (user.is_active and two_factor.privileged(user)):
        raise Http404
    context: dict[str, Any] = {**admin.site.each_context(request), "title": _("Two-factor sign-in"),
                               "next": _next(request)}
    if two_factor.enrolled(user):
        return render(request, TEMPLATE, {**context, "enrolled": True})
    if request.method != "POST":
        device = two_factor.begin(request)
        return render(request, TEMPLATE, {**context, "form": EnrolmentForm(request), "qr": two_factor.qr_svg(device),
                                          "secret": two_factor.secret(device)})
    form = EnrolmentForm(request, request.POST)
    if form.is_valid() and form.device is not None:
        if not two_factor.confirm(request, form.device):  # another request enrolled the account first
            return render(request, TEMPLATE, {**context, "enrolled": True})
        messages.success(request, _("Two-factor sign-in is on: from now on you sign in with a code."))
        return HttpResponseRedirect(context["next"])
    return with_lockout_status(TemplateResponse(request, TEMPLATE, {**context, "form": form}))


def _next(request: HttpRequest) -> str:
    wanted = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, "")
    safe = url_has_allowed_host_and_scheme(wanted, {request.get_host()}, require_https=request.is_secure())
    return wanted if safe else reverse("admin:index")

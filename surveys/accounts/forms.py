"""The login forms of both login pages (researchers' and the admin's): Django's, with the
sign-in throttle (surveys.accounts.throttle) and the second factor (surveys.accounts.two_factor)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy, ngettext

from . import two_factor
from .throttle import LoginThrottle


def code_field() -> forms.CharField:
    return forms.CharField(
        label=gettext_lazy("Two-factor code"), required=False, max_length=10, strip=True,
        help_text=gettext_lazy("Only if two-factor sign-in is on for your account: the 6-digit code your "
                               "authenticator app shows now."),
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}))


class SignIn:
    """Mixin for an AuthenticationForm: refuse a locked-out username before checking anything,
    count every failure (a wrong password or a wrong or missing code), and require the code of an
    account with a device. `retry_after` is set when the answer is a lockout."""

    retry_after: int | None = None
    request: Any
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
        if not (username and password):
            return super().clean()  # type: ignore[misc]  # the missing field's own error
        throttle = LoginThrottle.of(self.request, username)
        if (wait := throttle.retry_after()) is not None:
            raise self.locked_out(wait)
        try:
            super().clean()  # type: ignore[misc]  # authenticates
            self.check_second_factor()
        except ValidationError:
            if (wait := throttle.failed()) is not None:
                raise self.locked_out(wait) from None
            raise
        throttle.succeeded()
        return self.cleaned_data

    def check_second_factor(self) -> None:
        user = self.get_user()  # type: ignore[attr-defined]
        if not two_factor.enrolled(user):
            return
        code = self.cleaned_data.get("otp_token") or ""
        if not code:
            raise ValidationError(gettext_lazy("Two-factor sign-in is on for this account: enter the code your "
                                               "authenticator app shows."), code="otp_required")
        device = two_factor.verify(user, code)
        if device is None:
            raise ValidationError(gettext_lazy("That code is not right, or was already used: enter the code your "
                                               "authenticator app shows now."), code="otp_invalid")
        user.otp_device = device  # django-otp marks the session verified when Django logs the user in

    def locked_out(self, seconds: int) -> ValidationError:
        self.retry_after = seconds
        minutes = max(1, -(-seconds // 60))
        return ValidationError(ngettext(
            "Too many failed sign-ins for this account from your network. Try again in %(minutes)d minute.",
            "Too many failed sign-ins for this account from your network. Try again in %(minutes)d minutes.",
            minutes) % {"minutes": minutes}, code="locked")


class SignInForm(SignIn, AuthenticationForm):
    otp_token = code_field()


class AdminSignInForm(SignIn, AdminAuthenticationForm):
    otp_token = code_field()

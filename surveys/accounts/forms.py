"""The login forms of both login pages (researchers' and the admin's): Django's, with the
sign-in throttle (surveys.accounts.throttle) and the second factor (surveys.accounts.two_factor);
and the form that confirms a two-factor enrolment, throttled the same way."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext_lazy, ngettext
from django_otp.plugins.otp_totp.models import TOTPDevice

from . import two_factor
from .throttle import LoginThrottle


def code_field(label: Any, **extra: Any) -> forms.CharField:
    return forms.CharField(
        label=label, max_length=10, strip=True, **extra,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}))


def locked_out(form: Any, seconds: int) -> ValidationError:
    """The lockout's refusal; `form.retry_after` tells the view to answer 429 (responses.with_lockout_status)."""
    form.retry_after = seconds
    minutes = max(1, -(-seconds // 60))
    return ValidationError(ngettext(
        "Too many failed sign-ins for this account from your network. Try again in %(minutes)d minute.",
        "Too many failed sign-ins for this account from your network. Try again in %(minutes)d minutes.",
        minutes) % {"minutes": minutes}, code="locked")


class SignIn:
    """Mixin for an AuthenticationForm: refuse a locked-out username before checking anything,
    count every failure (a wrong password or a wrong or missing code), and require the code of an
    account with a device. A missing or wrong code gets the very answer a wrong password gets, so
    the page never tells whether the password was right. `retry_after` is set when the answer is
    a lockout."""

    retry_after: int | None = None
    request: Any
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
        if not (username and password):
            return super().clean()  # type: ignore[misc]  # the missing field's own error
        throttle = LoginThrottle.of(self.request, username)
        if (wait := throttle.retry_after()) is not None:
            raise locked_out(self, wait)
        try:
            super().clean()  # type: ignore[misc]  # authenticates
            self.check_second_factor()
        except ValidationError:
            if (wait := throttle.failed()) is not None:
                raise locked_out(self, wait) from None
            raise
        throttle.succeeded()
        return self.cleaned_data

    def check_second_factor(self) -> None:
        user = self.get_user()  # type: ignore[attr-defined]
        if not two_factor.enrolled(user):
            return
        device = two_factor.verify(user, self.cleaned_data.get("otp_token") or "")
        if device is None:
            raise self.get_invalid_login_error()  # type: ignore[attr-defined]  # as for a wrong password
        user.otp_device = device  # django-otp marks the session verified when Django logs the user in


OTP_HELP = gettext_lazy("Only if two-factor sign-in is on for your account: the 6-digit code your "
                        "authenticator app shows now.")


class SignInForm(SignIn, AuthenticationForm):
    otp_token = code_field(gettext_lazy("Two-factor code"), required=False, help_text=OTP_HELP)
    error_messages = {**AuthenticationForm.error_messages, "invalid_login": gettext_lazy(
        "Please enter a correct %(username)s and password, and the code of your authenticator app if "
        "two-factor sign-in is on for your account. Note that the fields may be case-sensitive.")}


class AdminSignInForm(SignIn, AdminAuthenticationForm):
    otp_token = code_field(gettext_lazy("Two-factor code"), required=False, help_text=OTP_HELP)
    error_messages = {**AdminAuthenticationForm.error_messages, "invalid_login": gettext_lazy(
        "Please enter the correct %(username)s and password for a staff account, and the code of your "
        "authenticator app if two-factor sign-in is on for it. Note that the fields may be case-sensitive.")}


class EnrolmentForm(forms.Form):
    """Confirm the enrolment this session began (two_factor.begin) with the account's password and
    a current code of the new key. The password is asked again because a session alone may be
    somebody else's; every failure counts towards the sign-in lockout, so this page is no better
    place to guess a password than the login pages. `device` is the checked device."""

    password = forms.CharField(label=gettext_lazy("Password"), strip=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))
    code = code_field(gettext_lazy("Code from the app"))
    retry_after: int | None = None

    def __init__(self, request: HttpRequest, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.request = request
        self.device: TOTPDevice | None = two_factor.pending(request)

    def clean(self) -> dict[str, Any]:
        password, code = self.cleaned_data.get("password"), self.cleaned_data.get("code")
        if self.device is None:
            raise ValidationError(gettext_lazy("The key this page showed is no longer valid (the page was opened "
                                               "again since, or you signed out): start again with a new key."),
                                  code="stale")
        if not (password and code):
            return self.cleaned_data
        user = self.request.user
        throttle = LoginThrottle.of(self.request, user.get_username())
        if (wait := throttle.retry_after()) is not None:
            raise locked_out(self, wait)
        if not user.check_password(password):
            error = ValidationError({"password": gettext_lazy("That is not this account's password.")})
        elif not two_factor.accepts(self.device, code):
            error = ValidationError({"code": gettext_lazy("That code is not right: enter the code the app shows now.")})
        else:
            throttle.succeeded()
            return self.cleaned_data
        if (wait := throttle.failed()) is not None:
            raise locked_out(self, wait)
        raise error

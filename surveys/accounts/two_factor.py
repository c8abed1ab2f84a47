"""Two-factor sign-in for staff: one TOTP device per account (django-otp's TOTPDevice, RFC 6238:
the 6-digit codes of any authenticator app), enrolled by its owner with a QR code.

An account with a confirmed device signs in only with a current code, on either login page. With
settings.STAFF_TWO_FACTOR "required" (DJANGO_STAFF_2FA=required) no staff member or superuser
goes past the sign-in before enrolling. One rule, `admitted`, decides which signed-in sessions
the staff's and researchers' pages serve (the admin, the preview, every results page, export and
results API endpoint): a session of an account with a device must have been verified with a code
(a session started without one, or by force_login, is not).

Enrolment: each visit of the enrolment page makes a new key, kept only in the session that asked
for it (never an unconfirmed device in the database, which every other session of the account
could read) and shown that once. Confirming takes the account's password again and a current code
of that key; the device is then stored with that code's time step spent.
"""

from __future__ import annotations

import time
from base64 import b32encode
from typing import Any

import django_otp
import segno
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpRequest
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django_otp.models import Device
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_otp.util import random_hex

ENROLMENT = "two_factor_enrolment"  # the session's key: {"user": pk, "key": hex} of the key being enrolled


def enrolled(user: Any) -> bool:
    return bool(user.is_authenticated and django_otp.user_has_device(user, confirmed=True))


def verified(user: Any) -> bool:
    """Whether this request's session was verified with a code (OTPMiddleware sets is_verified)."""
    check = getattr(user, "is_verified", None)
    return bool(check and check())


def privileged(user: Any) -> bool:
    """Staff, and superusers (who read every survey's results even without staff status)."""
    return bool(user.is_staff or user.is_superuser)


def required(user: Any) -> bool:
    return bool(settings.STAFF_TWO_FACTOR == "required" and privileged(user))


def satisfied(user: Any) -> bool:
    """As far as the second factor goes, may this session use the pages behind the sign-in?"""
    return verified(user) or not (enrolled(user) or required(user))


def admitted(user: Any) -> bool:
    """The one rule of every staff and researcher page: a signed-in active account, its second factor satisfied."""
    return bool(user.is_authenticated and user.is_active and satisfied(user))


def must_enrol(user: Any) -> bool:
    return bool(user.is_authenticated and user.is_active and required(user) and not enrolled(user))


def verify(user: Any, token: str) -> Device | None:
    """The user's confirmed device that accepts `token` (each code works once; django-otp slows
    down repeated failures), or None. A missing code is no guess: it does not count as a failure,
    so the sign-in right after it, with the code, is not slowed down."""
    token = token.replace(" ", "")
    if not is_a_code(token):
        return None
    for device in django_otp.devices_for_user(user, confirmed=True):
        found = django_otp.verify_token(user, device.persistent_id, token)
        if found is not None:
            return found
    return None


def is_a_code(token: str) -> bool:
    return token.isascii() and token.isdigit()


def begin(request: HttpRequest) -> TOTPDevice:
    """A new device for the signed-in user, its key kept in this session only, replacing any
    key this session was enrolling before. Not saved: `confirm` saves it."""
    key = random_hex(20)
    request.session[ENROLMENT] = {"user": request.user.pk, "key": key}
    return _device(request.user, key)


def pending(request: HttpRequest) -> TOTPDevice | None:
    """The device this session began to enrol (`begin`), or None."""
    began = request.session.get(ENROLMENT)
    if not isinstance(began, dict) or began.get("user") != request.user.pk:
        return None
    return _device(request.user, began["key"])


def _device(user: Any, key: str) -> TOTPDevice:
    return TOTPDevice(user=user, name=_("Authenticator app"), key=key, confirmed=True)


def accepts(device: TOTPDevice, token: str) -> bool:
    """Whether `token` is a current code of the unsaved `device` (one step of clock drift allowed,
    as at sign-in); if so, the device records that step as spent. Unlike django-otp's own check
    this saves nothing, so a wrong code stores no device."""
    token = token.replace(" ", "")
    if not is_a_code(token):
        return False
    clock = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    clock.time = time.time()
    if not clock.verify(int(token), device.tolerance):
        return False
    device.last_t, device.drift = clock.t(), clock.drift
    return True


def confirm(request: HttpRequest, device: TOTPDevice) -> bool:
    """Store `device` (its code checked by `accepts`) as the account's device and verify this
    session with it; False, storing nothing, if the account has a device already."""
    with transaction.atomic():
        # One enrolment at a time per account: two confirmations at once would store two devices.
        get_user_model().objects.select_for_update().get(pk=device.user_id)
        if enrolled(device.user):
            return False
        TOTPDevice.objects.filter(user=device.user, confirmed=False).delete()  # left from older releases
        device.set_last_used_timestamp(commit=False)
        device.save()
    request.session.pop(ENROLMENT, None)
    request.session.cycle_key()  # the session gains a privilege: a new key, as at sign-in
    django_otp.login(request, device)
    return True


def secret(device: TOTPDevice) -> str:
    """The key in base32, in groups of four, for typing into an app that cannot scan."""
    text = b32encode(device.bin_key).decode()
    return " ".join(text[i:i + 4] for i in range(0, len(text), 4))


def qr_svg(device: TOTPDevice) -> SafeString:
    """The device's otpauth:// URL (it carries the secret) as an inline SVG QR code."""
    svg = segno.make(device.config_url, error="m").svg_inline(
        scale=4, dark="#000", light="#fff", title=_("QR code for your authenticator app"))
    return mark_safe(svg)  # noqa: S308 - markup segno generated

"""Two-factor sign-in for staff: one TOTP device per account (django-otp's TOTPDevice, RFC 6238:
the 6-digit codes of any authenticator app), enrolled by its owner with a QR code.

An account with a confirmed device signs in only with a current code, on either login page,
and the admin lets its session in only once a code has verified it (a session started
without one, or by force_login, is not verified). With settings.STAFF_TWO_FACTOR "required"
(DJANGO_STAFF_2FA=required) no staff member uses the admin before enrolling.
"""

from __future__ import annotations

from base64 import b32encode
from typing import Any

import django_otp
import segno
from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django_otp.models import Device
from django_otp.plugins.otp_totp.models import TOTPDevice


def enrolled(user: Any) -> bool:
    return bool(user.is_authenticated and django_otp.user_has_device(user, confirmed=True))


def verified(user: Any) -> bool:
    """Whether this request's session was verified with a code (OTPMiddleware sets is_verified)."""
    check = getattr(user, "is_verified", None)
    return bool(check and check())


def required(user: Any) -> bool:
    return bool(settings.STAFF_TWO_FACTOR == "required" and user.is_staff)


def satisfied(user: Any) -> bool:
    """May this session use the admin, as far as the second factor goes?"""
    return verified(user) or not (enrolled(user) or required(user))


def must_enrol(user: Any) -> bool:
    return bool(user.is_authenticated and user.is_active and required(user) and not enrolled(user))


def verify(user: Any, token: str) -> Device | None:
    """The user's confirmed device that accepts `token` (each code works once; django-otp slows
    down repeated failures), or None."""
    token = token.replace(" ", "")
    for device in django_otp.devices_for_user(user, confirmed=True):
        found = django_otp.verify_token(user, device.persistent_id, token)
        if found is not None:
            return found
    return None


def pending_device(user: Any) -> TOTPDevice:
    """The device being enrolled: its secret is made on the first visit and kept until confirmed."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    return device or TOTPDevice.objects.create(user=user, name=_("Authenticator app"), confirmed=False)


def confirm(request: HttpRequest, device: TOTPDevice, token: str) -> bool:
    """Confirm the pending `device` with a code it made; the session is then verified."""
    with transaction.atomic():
        if django_otp.verify_token(request.user, device.persistent_id, token.replace(" ", "")) is None:
            return False
        TOTPDevice.objects.filter(pk=device.pk).update(confirmed=True)
        TOTPDevice.objects.filter(user=request.user, confirmed=False).delete()
    device.refresh_from_db()
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

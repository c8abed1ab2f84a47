"""Fixtures for the accounts tests: a staff member, with or without an authenticator app."""

import time

import pytest
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.factories import PASSWORD, make_user

LOGIN_PAGES = ["/accounts/login/", "/admin/login/"]


@pytest.fixture
def staff(db):
    return make_user("editor", is_staff=True, is_superuser=True)


@pytest.fixture
def device(staff):
    """A confirmed authenticator app of `staff`."""
    return TOTPDevice.objects.create(user=staff, name="phone", confirmed=True)


def code(device, steps_ahead=0) -> str:
    """The code the app shows now (or `steps_ahead` 30-second steps later: one step is still accepted)."""
    device.refresh_from_db()
    clock = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    clock.time = time.time() + steps_ahead * device.step
    return f"{clock.token():0{device.digits}d}"


def sign_in(client, page, username, password=PASSWORD, otp_token="", address="198.51.100.7"):
    return client.post(page, {"username": username, "password": password, "otp_token": otp_token},
                       REMOTE_ADDR=address)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session

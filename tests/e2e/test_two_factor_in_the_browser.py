"""Two-factor sign-in in a real browser: a staff member enrols an authenticator app from the QR
page (typing the password and the code an app would show for the key on the page), and from then
on the admin's login needs the code. Both pages pass axe-core's WCAG 2.2 A and AA checks."""

import time
from base64 import b32decode

import pytest
from django.contrib.auth import get_user_model
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import expect

from tests.e2e.conftest import axe_violations
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def code_for(key: str) -> str:
    """What an authenticator app shows for the base32 `key` shown on the page."""
    clock = TOTP(b32decode(key.replace(" ", "")))
    clock.time = time.time()
    return f"{clock.token():06d}"


def next_code(key: str) -> str:
    """The first code the server accepts after enrolment: a step after the spent one, on the
    drift that the enrolment recorded (-1 when the enrolment's page crossed a 30 s step)."""
    device = TOTPDevice.objects.get()
    clock = TOTP(b32decode(key.replace(" ", "")))
    clock.time = time.time()
    clock.drift = max(device.last_t + 1 - clock.t(), device.drift)
    return f"{clock.token():06d}"


def sign_in(page, url, code=""):
    page.goto(f"{url}/admin/login/?next=/admin/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_otp_token", code)
    page.click("[type=submit]")
    page.wait_for_load_state()


def test_a_staff_member_enrols_and_then_signs_in_only_with_the_code(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    sign_in(page, live_server.url)
    assert axe_violations(page) == []
    page.click("text=Two-factor sign-in")  # returns once the new page starts, not once it is loaded
    page.wait_for_load_state()
    expect(page.locator(".two-factor-qr svg")).to_be_visible()
    assert axe_violations(page) == []
    key = page.locator("code").inner_text()
    page.fill("#id_password", PASSWORD)
    page.fill("#id_code", code_for(key))
    page.click("#content-main [type=submit]")  # not the header's "Log out"
    page.wait_for_load_state()
    assert page.url == f"{live_server.url}/admin/"

    page.context.clear_cookies()
    sign_in(page, live_server.url)
    # Refused as a wrong password is: the page does not say that the password was right.
    assert "and the code of your authenticator app if two-factor sign-in is on for it" in \
        page.locator(".errornote").inner_text()
    assert page.url.startswith(f"{live_server.url}/admin/login/")
    sign_in(page, live_server.url, next_code(key))  # the enrolment's code is spent
    assert page.url == f"{live_server.url}/admin/"

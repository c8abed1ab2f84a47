"""/accounts/two-factor/: staff enrol an authenticator app with a QR code (or its key) and confirm
it with their password and a first code. Each visit makes a new key, kept only in that session
and shown that once; nothing is stored before the confirmation. The page is for staff (and
superusers) only and never cached (it shows a secret)."""

import re
import time
from base64 import b32decode, b32encode

import pytest
from django.test import Client
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from surveys.accounts import two_factor
from tests.accounts.conftest import sign_in, signed_in
from tests.factories import PASSWORD, make_user

PAGE = "/accounts/two-factor/"


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def shown_key(page) -> str:
    """The key the page shows, as base32 without spaces (what an app is given)."""
    return re.search(r"<code>([A-Z2-7 ]+)</code>", page.content.decode()).group(1).replace(" ", "")


def app_code(key: str, at: float | None = None) -> str:
    """The code an authenticator app given the base32 `key` shows now (or at the time `at`)."""
    clock = TOTP(b32decode(key))
    clock.time = time.time() if at is None else at
    return f"{clock.token():06d}"


def confirm(client, key: str, password: str = PASSWORD, next_page: str = ""):
    return client.post(PAGE, {"password": password, "code": app_code(key), "next": next_page})


def test_anonymous_visitors_are_sent_to_the_admins_login(client, db):
    assert client.get(PAGE)["Location"] == f"/admin/login/?next={PAGE}"


def test_a_researcher_gets_404(owner_client):
    assert owner_client.get(PAGE).status_code == 404


def test_a_superuser_without_staff_status_may_enrol(client, db):
    client.force_login(make_user("root", is_superuser=True))
    assert client.get(PAGE).status_code == 200


def test_it_shows_a_qr_code_and_the_key_of_a_new_device_stores_nothing_and_is_never_cached(staff_client, staff):
    page = staff_client.get(PAGE)
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"] and "private" in page["Cache-Control"]
    html = page.content.decode()
    assert re.search(r'<div class="two-factor-qr"><svg', html)
    key = shown_key(page)
    assert key == b32encode(two_factor.pending(page.wsgi_request).bin_key).decode()
    assert f"secret={key}" in two_factor.pending(page.wsgi_request).config_url
    assert not TOTPDevice.objects.exists()


def test_each_visit_makes_a_new_key_and_only_the_last_one_can_be_confirmed(staff_client, staff):
    first, second = shown_key(staff_client.get(PAGE)), shown_key(staff_client.get(PAGE))
    assert first != second and not TOTPDevice.objects.exists()
    assert confirm(staff_client, first).status_code == 200
    assert not TOTPDevice.objects.exists()
    assert confirm(staff_client, second).status_code == 302
    assert TOTPDevice.objects.get(user=staff).bin_key == b32decode(second)


def test_the_key_planted_by_a_session_with_the_password_alone_does_not_open_the_account(staff):
    """Issue 24, item 1: somebody with the password opens the page first and notes the key; the
    owner enrols later from their own session; the key noted earlier opens nothing."""
    attacker, owner = Client(), Client()
    assert sign_in(attacker, "/admin/login/", "editor").status_code == 302
    planted = shown_key(attacker.get(PAGE))
    assert sign_in(owner, "/admin/login/", "editor", address="192.0.2.1").status_code == 302
    owners = shown_key(owner.get(PAGE))
    assert confirm(owner, owners).status_code == 302

    later = Client()
    # The code the attacker's app shows a step later (the owner's confirming code spent the current step).
    refused = sign_in(later, "/admin/login/", "editor", otp_token=app_code(planted, time.time() + 30))
    assert refused.status_code == 200 and not signed_in(later)
    assert owners != planted
    assert later.get("/admin/").status_code == 302 and later.get("/results/").status_code == 302
    # Nor does the attacker's own session, signed in with the password alone, get anywhere now.
    assert attacker.get("/admin/")["Location"] == "/admin/login/?next=/admin/"
    assert attacker.get("/results/")["Location"] == "/accounts/login/?next=/results/"
    assert confirm(attacker, planted).status_code == 200  # the account is enrolled: told so, nothing stored
    assert TOTPDevice.objects.get(user=staff).bin_key == b32decode(owners)


def test_confirming_needs_the_password_again(staff_client, staff):
    key = shown_key(staff_client.get(PAGE))
    answer = confirm(staff_client, key, password="wrong")
    assert answer.status_code == 200 and "That is not this account&#x27;s password." in answer.content.decode()
    assert not TOTPDevice.objects.exists()
    assert confirm(staff_client, key).status_code == 302


def test_a_wrong_code_stores_nothing_and_the_key_is_not_shown_again(staff_client, staff):
    key = shown_key(staff_client.get(PAGE))
    answer = staff_client.post(PAGE, {"password": PASSWORD, "code": "000000"})
    html = answer.content.decode()
    assert answer.status_code == 200 and "That code is not right" in html
    assert "<code>" not in html and "two-factor-qr" not in html and "Start again with a new key" in html
    assert not TOTPDevice.objects.exists()
    assert confirm(staff_client, key).status_code == 302  # the same key, with the right code


def test_a_session_that_began_no_enrolment_cannot_confirm_one(staff_client, staff):
    answer = staff_client.post(PAGE, {"password": PASSWORD, "code": "123456"})
    assert answer.status_code == 200 and "start again with a new key" in answer.content.decode()
    assert not TOTPDevice.objects.exists()


def test_wrong_passwords_and_codes_count_towards_the_sign_in_lockout(staff_client, staff, settings):
    settings.LOGIN_LOCKOUT = (5, 900)
    key = shown_key(staff_client.get(PAGE))
    statuses = [staff_client.post(PAGE, {"password": "wrong" if i % 2 else PASSWORD, "code": "000000"}).status_code
                for i in range(5)]
    assert statuses == [200] * 4 + [429]
    locked = confirm(staff_client, key)
    assert (locked.status_code, locked["Retry-After"]) == (429, "900")
    assert "Too many failed sign-ins" in locked.content.decode()
    assert not TOTPDevice.objects.exists()
    assert sign_in(Client(), "/admin/login/", "editor", address="127.0.0.1").status_code == 429  # the same count


def test_the_right_password_and_code_turn_it_on_and_verify_this_session(staff_client, staff, settings):
    settings.STAFF_TWO_FACTOR = "required"
    key = shown_key(staff_client.get(PAGE))
    answer = confirm(staff_client, key, next_page="/admin/collection/survey/")
    assert answer["Location"] == "/admin/collection/survey/"
    device = TOTPDevice.objects.get(user=staff)
    assert (device.confirmed, device.bin_key, device.name) == (True, b32decode(key), "Authenticator app")
    assert staff_client.get("/admin/collection/survey/").status_code == 200
    assert two_factor.ENROLMENT not in staff_client.session


def test_the_code_that_confirmed_the_app_cannot_sign_in_again(staff_client, staff):
    key = shown_key(staff_client.get(PAGE))
    now = time.time()
    spent = app_code(key, now)
    assert staff_client.post(PAGE, {"password": PASSWORD, "code": spent}).status_code == 302
    again = Client()
    assert sign_in(again, "/admin/login/", "editor", otp_token=spent).status_code == 200 and not signed_in(again)
    assert TOTPDevice.objects.get(user=staff).last_t == int(now) // 30  # that code's step is spent


def test_an_enrolled_account_is_told_so_and_given_no_new_secret(staff_client, staff, device):
    page = staff_client.get(PAGE)
    assert "Two-factor sign-in is on for your account" in page.content.decode()
    assert "two-factor-qr" not in page.content.decode() and "<code>" not in page.content.decode()
    assert TOTPDevice.objects.filter(user=staff).count() == 1
    assert two_factor.ENROLMENT not in staff_client.session


def test_it_sends_you_on_only_within_this_site(staff_client, staff):
    key = shown_key(staff_client.get(PAGE))
    assert confirm(staff_client, key, next_page="https://elsewhere.example/")["Location"] == "/admin/"

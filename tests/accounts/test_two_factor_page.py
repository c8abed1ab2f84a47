"""/accounts/two-factor/: staff enrol an authenticator app with a QR code (or its key) and confirm
it with a first code; the page is for staff only and never cached (it shows a secret)."""

import re
from base64 import b32encode

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.accounts.conftest import code

PAGE = "/accounts/two-factor/"


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def pending(staff):
    return TOTPDevice.objects.get(user=staff, confirmed=False)


def test_anonymous_visitors_are_sent_to_the_admins_login(client, db):
    assert client.get(PAGE)["Location"] == f"/admin/login/?next={PAGE}"


def test_a_researcher_gets_404(owner_client):
    assert owner_client.get(PAGE).status_code == 404


def test_it_shows_a_qr_code_and_the_key_of_a_new_device_and_is_never_cached(staff_client, staff):
    page = staff_client.get(PAGE)
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"] and "private" in page["Cache-Control"]
    html = page.content.decode()
    assert re.search(r'<div class="two-factor-qr"><svg', html)
    shown = re.search(r"<code>([A-Z2-7 ]+)</code>", html).group(1).replace(" ", "")
    assert shown == b32encode(pending(staff).bin_key).decode()
    assert f"secret={shown}" in pending(staff).config_url


def test_visiting_again_shows_the_same_device_until_it_is_confirmed(staff_client, staff):
    staff_client.get(PAGE)
    first = pending(staff).pk
    staff_client.get(PAGE)
    assert list(TOTPDevice.objects.filter(user=staff).values_list("pk", flat=True)) == [first]


def test_a_wrong_code_leaves_the_device_unconfirmed(staff_client, staff):
    staff_client.get(PAGE)
    answer = staff_client.post(PAGE, {"code": "000000"})
    assert answer.status_code == 200 and "That code is not right" in answer.content.decode()
    assert not TOTPDevice.objects.filter(user=staff, confirmed=True).exists()


def test_the_right_code_turns_it_on_and_verifies_this_session(staff_client, staff, settings):
    settings.STAFF_TWO_FACTOR = "required"
    staff_client.get(PAGE)
    answer = staff_client.post(PAGE, {"code": code(pending(staff)), "next": "/admin/collection/survey/"})
    assert answer["Location"] == "/admin/collection/survey/"
    assert TOTPDevice.objects.get(user=staff).confirmed
    assert staff_client.get("/admin/collection/survey/").status_code == 200


def test_an_enrolled_account_is_told_so_and_given_no_new_secret(staff_client, staff, device):
    page = staff_client.get(PAGE)
    assert "Two-factor sign-in is on for your account" in page.content.decode()
    assert "two-factor-qr" not in page.content.decode() and "<code>" not in page.content.decode()
    assert TOTPDevice.objects.filter(user=staff).count() == 1


def test_it_sends_you_on_only_within_this_site(staff_client, staff):
    staff_client.get(PAGE)
    answer = staff_client.post(PAGE, {"code": code(pending(staff)), "next": "https://elsewhere.example/"})
    assert answer["Location"] == "/admin/"

"""A staff account with an authenticator app signs in only with its current code, on either login
page, and the admin lets a session in only once a code has verified it. With DJANGO_STAFF_2FA
"required", staff without an app are sent to enrol before they see the admin."""

import pytest

from tests.accounts.conftest import LOGIN_PAGES, code, sign_in, signed_in


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_a_staff_account_with_an_app_cannot_sign_in_without_its_code(client, device, page):
    refused = sign_in(client, page, "editor")
    assert refused.status_code == 200 and not signed_in(client)
    assert "Two-factor sign-in is on for this account" in refused.content.decode()
    assert client.get("/admin/").status_code == 302


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_a_wrong_code_is_refused(client, device, page):
    wrong = f"{(int(code(device)) + 1) % 10**6:06d}"
    refused = sign_in(client, page, "editor", otp_token=wrong)
    assert refused.status_code == 200 and not signed_in(client)
    assert "That code is not right" in refused.content.decode()


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_the_password_and_the_current_code_open_the_admin(client, device, page):
    assert sign_in(client, page, "editor", otp_token=code(device)).status_code == 302
    assert client.get("/admin/").status_code == 200


def test_a_code_works_only_once(client, device):
    used = code(device)
    assert sign_in(client, "/admin/login/", "editor", otp_token=used).status_code == 302
    client.logout()
    assert sign_in(client, "/admin/login/", "editor", otp_token=used).status_code == 200
    assert not signed_in(client)


def test_a_session_not_verified_by_a_code_is_kept_out_of_the_admin(client, staff, device):
    client.force_login(staff)
    answer = client.get("/admin/collection/survey/")
    assert answer.status_code == 302 and answer["Location"].startswith("/admin/login/")


def test_wrong_codes_count_towards_the_lockout(client, device, settings):
    settings.LOGIN_LOCKOUT = (5, 900)
    statuses = [sign_in(client, "/admin/login/", "editor", otp_token="000000").status_code for _ in range(5)]
    assert statuses == [200] * 4 + [429]
    assert sign_in(client, "/admin/login/", "editor", otp_token=code(device)).status_code == 429


def test_staff_without_an_app_sign_in_with_the_password_alone_by_default(client, staff):
    assert sign_in(client, "/admin/login/", "editor").status_code == 302
    assert client.get("/admin/").status_code == 200


def test_when_required_staff_without_an_app_are_sent_to_enrol_first(client, staff, settings):
    settings.STAFF_TWO_FACTOR = "required"
    assert sign_in(client, "/admin/login/", "editor").status_code == 302
    assert client.get("/admin/")["Location"] == "/admin/login/?next=/admin/"
    assert client.get("/admin/login/?next=/admin/")["Location"] == "/accounts/two-factor/?next=%2Fadmin%2F"
    assert client.get("/accounts/two-factor/?next=/admin/").status_code == 200


def test_when_required_researchers_are_not_asked_for_a_code(client, owner, settings):
    settings.STAFF_TWO_FACTOR = "required"
    assert sign_in(client, "/accounts/login/", "owner").status_code == 302
    assert client.get("/results/").status_code == 200

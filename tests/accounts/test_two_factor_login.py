"""A staff account with an authenticator app signs in only with its current code, on either login
page, and the admin lets a session in only once a code has verified it. A missing or wrong code
gets the answer a wrong password gets, so the pages tell nobody whether a password was right. With
DJANGO_STAFF_2FA "required", staff without an app are sent to enrol before they see the admin."""

import re

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.accounts.conftest import LOGIN_PAGES, code, sign_in, signed_in
from tests.factories import PASSWORD

REFUSED = {"/accounts/login/": "Please enter a correct username and password, and the code of your authenticator app "
                               "if two-factor sign-in is on for your account.",
           "/admin/login/": "Please enter the correct username and password for a staff account, and the code of your "
                            "authenticator app if two-factor sign-in is on for it."}


def wrong(device) -> str:
    return f"{(int(code(device)) + 1) % 10**6:06d}"


def page_of(response) -> tuple[int, str]:
    """The status and the whole page but for its CSRF token (a new mask on every page)."""
    return response.status_code, re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_a_staff_account_with_an_app_cannot_sign_in_without_its_code(client, device, page):
    refused = sign_in(client, page, "editor")
    assert refused.status_code == 200 and not signed_in(client)
    assert REFUSED[page] in refused.content.decode()
    assert client.get("/admin/").status_code == 302


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_a_wrong_code_is_refused(client, device, page):
    refused = sign_in(client, page, "editor", otp_token=wrong(device))
    assert refused.status_code == 200 and not signed_in(client)
    assert REFUSED[page] in refused.content.decode()


@pytest.mark.parametrize("page", LOGIN_PAGES)
@pytest.mark.parametrize("given", ["no code", "a wrong code"])
def test_the_right_password_without_its_code_is_answered_as_a_wrong_password(client, device, page, given):
    """Issue 24, item 3: no password oracle."""
    otp_token = "" if given == "no code" else wrong(device)
    right = sign_in(client, page, "editor", otp_token=otp_token)
    assert page_of(right) == page_of(sign_in(client, page, "editor", "wrong", otp_token=otp_token))
    assert not signed_in(client)


def test_missing_codes_wrong_codes_and_wrong_passwords_count_alike_towards_the_lockout(client, device, settings):
    settings.LOGIN_LOCKOUT = (5, 900)
    tries = [(PASSWORD, ""), ("wrong", ""), (PASSWORD, wrong(device)), ("wrong", code(device)), (PASSWORD, "")]
    statuses = [sign_in(client, "/accounts/login/", "editor", password, otp_token=otp).status_code
                for password, otp in tries]
    assert statuses == [200] * 4 + [429]


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_the_password_and_the_current_code_open_the_admin(client, device, page):
    assert sign_in(client, page, "editor", otp_token=code(device)).status_code == 302
    assert client.get("/admin/").status_code == 200


def test_signing_in_without_the_code_does_not_slow_down_the_sign_in_with_it(client, device):
    """A missing code is no guess: django-otp's delay after a failure (1 s, then doubling) is not started."""
    assert sign_in(client, "/admin/login/", "editor").status_code == 200
    assert sign_in(client, "/admin/login/", "editor", otp_token=code(device)).status_code == 302
    assert TOTPDevice.objects.get().throttling_failure_count == 0


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


@pytest.mark.parametrize("is_staff", [True, False])
def test_when_required_a_superuser_signed_in_with_the_password_alone_reads_no_results(client, superuser, survey,
                                                                                     settings, is_staff):
    """Issue 24, item 2: the researchers' login page is no way around the admin's rule (nor is
    taking away a superuser's staff status)."""
    settings.STAFF_TWO_FACTOR = "required"
    superuser.is_staff = is_staff
    superuser.save()
    assert sign_in(client, "/accounts/login/", "super")["Location"] == "/results/"
    for page in ["/results/", "/results/health/", "/results/health/export/reports.csv"]:
        assert client.get(page)["Location"] == f"/accounts/login/?next={page}"
    assert client.get("/api/v1/surveys/health/estimates/").status_code == 403
    assert client.get("/accounts/login/?next=/results/")["Location"] == "/accounts/two-factor/?next=%2Fresults%2F"


def test_a_session_without_its_code_gets_the_form_again_not_a_loop(client, staff, device):
    client.force_login(staff)  # signed in without a code, as before the app was enrolled
    page = client.get("/accounts/login/?next=/results/")
    assert page.status_code == 200
    assert "You are signed in as editor, but not allowed to see this page" in page.content.decode()
    assert sign_in(client, "/accounts/login/?next=/results/", "editor", otp_token=code(device))["Location"] == \
        "/results/"
    assert client.get("/results/").status_code == 200


def test_a_session_verified_with_the_code_reads_results_and_the_api(client, superuser, survey):
    device = TOTPDevice.objects.create(user=superuser, name="phone", confirmed=True)
    assert sign_in(client, "/accounts/login/", "super", otp_token=code(device)).status_code == 302
    assert client.get("/results/health/").status_code == 200
    assert client.get("/api/v1/surveys/health/estimates/").status_code == 200

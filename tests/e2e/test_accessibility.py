"""Every kind of page passes axe-core's WCAG 2.2 A and AA checks: the respondent page before and
after sending, the researcher's list and dashboard, the sign-in page, the admin's survey page and
the front page (signed out and in, in every language under test)."""

import pytest
from django.contrib.auth import get_user_model

from surveys.collection import demo
from tests.e2e.conftest import agree, axe_violations
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def log_in(page, login_url, username, next_path):
    page.goto(f"{login_url}?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    page.wait_for_load_state()


def test_the_respondent_page_has_no_violations_before_or_after_sending(live_server, page):
    demo.create_demo_survey()
    page.goto(f"{live_server.url}/s/demo/")
    assert axe_violations(page) == []  # the consent text, the questions hidden
    agree(page)
    assert axe_violations(page) == []
    for question in page.locator("fieldset.question").all():
        question.locator("input[type=radio]").first.check()
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert axe_violations(page) == []


def test_the_sign_in_list_and_dashboard_have_no_violations(live_server, page):
    survey, _ = demo.create_demo_survey()
    demo.simulate_responses(survey, 300, seed=4)
    survey.researchers.add(make_user("researcher"))
    page.goto(f"{live_server.url}/accounts/login/")
    assert axe_violations(page) == []
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/")
    assert axe_violations(page) == []
    page.goto(f"{live_server.url}/results/{survey.slug}/")
    assert axe_violations(page) == []


def test_the_admins_survey_page_has_no_violations(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey, _ = demo.create_demo_survey()
    log_in(page, f"{live_server.url}/admin/login/", "admin", f"/admin/collection/survey/{survey.pk}/change/")
    assert axe_violations(page) == []


def test_the_front_page_has_no_violations_signed_out_or_in(live_server, page_in_language, language):
    make_user("staff", is_staff=True)
    page = page_in_language()
    page.goto(f"{live_server.url}/")
    assert page.locator("html").get_attribute("lang") == language
    assert page.locator("main a").count() == 1  # signing in
    assert axe_violations(page) == [], "signed out"
    log_in(page, f"{live_server.url}/accounts/login/", "staff", "/")
    assert page.url == f"{live_server.url}/" and page.locator("main a").count() == 2  # results, the admin
    assert axe_violations(page) == [], "signed in"


def test_the_probe_sees_a_violation(live_server, page):
    """The check can fail: an image without a text alternative is reported."""
    demo.create_demo_survey()
    page.goto(f"{live_server.url}/s/demo/")
    page.evaluate("document.querySelector('h1').insertAdjacentHTML('afterend', '<img src=\"/x.png\">')")
    assert "image-alt" in [v["id"] for v in axe_violations(page)]


def test_a_survey_with_direct_questions_has_no_violations_on_the_page_receipt_and_dashboard(
        live_server, page, direct_survey, owner):
    from tests.aggregation.support import add_responses

    page.goto(f"{live_server.url}/s/{direct_survey.slug}/")
    assert page.locator(".direct-note").count() == 2
    assert axe_violations(page) == []
    for question in page.locator("fieldset.question").all():
        question.locator("input[type=radio]").last.check()
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert axe_violations(page) == []
    assert page.locator("#receipt-list li").nth(1).locator(".report").inner_text() == "“55+”"  # as given

    add_responses(direct_survey, 400, seed=5)
    log_in(page, f"{live_server.url}/accounts/login/", owner.username, f"/results/{direct_survey.slug}/")
    assert page.get_by_text("not randomized (sent as given)").count() == 2
    assert axe_violations(page) == []

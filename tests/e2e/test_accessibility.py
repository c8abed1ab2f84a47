"""The admin's survey pages (with the demo's questions, and with multi-select, numeric and ordinal ones) and a survey
with direct questions (its page, receipt and dashboard, beside the demo's dashboard) pass axe-core's WCAG 2.2 A and AA
checks, in English. Every other page and state, in every language under test, is checked in
test_accessibility_states; `log_in` is shared by the browser tests."""

from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from surveys.collection import demo
from tests.e2e.conftest import axe_violations
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def log_in(page, login_url, username, next_path):
    page.goto(f"{login_url}?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    # The click returns before the next page has loaded: wait until the sign-in page is left.
    page.wait_for_url(lambda url: urlsplit(url).path != urlsplit(login_url).path)


def test_the_admins_survey_pages_have_no_violations(live_server, page, kinds_survey):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey, _ = demo.create_demo_survey()
    log_in(page, f"{live_server.url}/admin/login/", "admin", f"/admin/collection/survey/{survey.pk}/change/")
    page.wait_for_selector("#questions-0 .privacy-live-figures")
    assert axe_violations(page) == [], "the demo's questions"
    page.goto(f"{live_server.url}/admin/collection/survey/{kinds_survey.pk}/change/")
    page.wait_for_selector("#questions-0 .privacy-live-figures")
    assert axe_violations(page) == [], "multi-select, numeric and ordinal questions"


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
    survey, _ = demo.create_demo_survey()
    demo.simulate_responses(survey, 300, seed=4)
    survey.researchers.add(owner)
    log_in(page, f"{live_server.url}/accounts/login/", owner.username, f"/results/{direct_survey.slug}/")
    assert page.get_by_text("not randomized (sent as given)").count() == 2
    assert axe_violations(page) == []
    page.goto(f"{live_server.url}/results/{survey.slug}/")  # the demo's dashboard as it first opens
    expect(page.locator("h1")).to_contain_text(survey.title)
    assert axe_violations(page) == [], "the demo's dashboard"

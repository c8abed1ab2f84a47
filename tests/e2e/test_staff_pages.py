"""Admins and researchers use their pages in a real browser, under the strict CSP."""

import pytest
from django.contrib.auth import get_user_model

from surveys.collection import demo
from surveys.collection.models import Invitation, Response, Survey
from tests.e2e.conftest import add_question
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def csp_violations(page):
    messages = []
    page.on("console", lambda message: messages.append(message.text)
            if "Content Security Policy" in message.text else None)
    return messages


def log_in(page, login_url, username, next_path):
    page.goto(f"{login_url}?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    page.wait_for_load_state()


def test_an_admin_logs_in_and_adds_a_question_inline_under_the_csp(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey, _ = demo.create_demo_survey()
    violations = csp_violations(page)
    change = f"/admin/collection/survey/{survey.pk}/change/"
    log_in(page, f"{live_server.url}/admin/login/", "admin", change)

    assert page.url == f"{live_server.url}{change}"
    inlines = page.locator(".inline-related:not(.empty-form)")
    before = inlines.count()
    add_question(page)  # the admin's own JavaScript adds an inline form
    assert inlines.count() == before + 1
    assert violations == []


def test_a_researcher_logs_in_and_reads_the_dashboard_under_the_csp(live_server, page):
    survey, _ = demo.create_demo_survey()
    demo.simulate_responses(survey, 200, seed=3)
    survey.researchers.add(make_user("researcher"))
    violations = csp_violations(page)
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", f"/results/{survey.slug}/")

    assert page.url == f"{live_server.url}/results/{survey.slug}/"
    assert page.locator("h1").text_content().strip().startswith(survey.title)
    # 200 responses are short of the planner's ±5 points: banners, the responses per day and no estimate chart.
    assert page.locator(".notice.early").count() == survey.questions.count()
    assert page.locator("svg.chart.estimates").count() == 0 and page.locator("svg.chart.daily").count() == 1
    # ±30 points with fixed-n intervals: 200 are enough (an open survey's anytime intervals need 373).
    page.goto(f"{live_server.url}/results/{survey.slug}/?margin=0.3&interval=wilson")
    assert page.locator("svg.chart.estimates[role=img]").count() == survey.questions.count()
    assert violations == []


def test_an_admin_makes_invitation_links_then_purges_the_survey_through_the_actions_under_the_csp(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey, _ = demo.create_demo_survey()
    Survey.objects.filter(pk=survey.pk).update(access=Survey.Access.INVITATION)
    violations = csp_violations(page)
    changelist = "/admin/collection/survey/"
    log_in(page, f"{live_server.url}/admin/login/", "admin", changelist)

    page.check(f"input[name=_selected_action][value='{survey.pk}']")
    page.select_option("select[name=action]", "create_invitations")
    page.click("button[name=index]")
    page.fill("#id_count", "3")
    with page.expect_download() as download:
        page.click("input[type=submit]")
    links = download.value.path().read_text().splitlines()[1:]
    assert len(links) == 3 and Invitation.objects.filter(survey=survey).count() == 3

    page.goto(f"{live_server.url}{changelist}")
    page.check(f"input[name=_selected_action][value='{survey.pk}']")
    page.select_option("select[name=action]", "purge_responses")
    page.click("button[name=index]")
    page.click("input[type=submit][value^='Yes']")
    page.wait_for_selector(".messagelist")
    assert "Purged demo" in page.locator(".messagelist").text_content()
    assert not Response.objects.filter(survey=survey).exists() and not Invitation.objects.exists()
    assert violations == []

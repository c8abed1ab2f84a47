"""Pages showing multi-select, numeric and ordinal questions pass axe-core's WCAG 2.2 A and AA checks: the respondent
page before sending, with its error messages shown, and after (the receipt); the dashboard with the mean, histogram and
multi-select charts and a cross-tab; the admin's survey page with multi-select, numeric and ordinal questions' rows."""

import pytest
from django.contrib.auth import get_user_model

from surveys.collection import builder, plan
from tests.e2e.answering import answer
from tests.e2e.conftest import axe_violations
from tests.e2e.test_accessibility import log_in
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_respondent_page_of_the_new_kinds_has_no_violations_with_errors_or_after_sending(live_server, page,
                                                                                            kinds_survey):
    page.goto(f"{live_server.url}/s/{kinds_survey.slug}/")
    page.wait_for_selector("#send:enabled")
    assert axe_violations(page) == []
    answer(page, [[0, 1, 2], "12.5", "11", "", 0])  # too many ticks, off the grid, out of range, missing
    page.click("#send")
    page.wait_for_selector(".problem:visible")
    assert page.locator(".problem:visible").count() == 4
    assert axe_violations(page) == []
    page.reload()
    page.wait_for_selector("#send:enabled")
    answer(page, [[1], "12", "2.5", "40", 3])
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert axe_violations(page) == []


def test_the_dashboard_of_the_new_kinds_has_no_violations(live_server, page, kinds_survey, owner):
    builder.simulate_responses(kinds_survey, 600, {}, seed=91)
    ids = [q.id for q in plan.of(kinds_survey)]
    log_in(page, f"{live_server.url}/accounts/login/", owner.username,
           f"/results/{kinds_survey.slug}/?margin=0.5&a={ids[0]}&b={ids[4]}")
    assert page.locator("svg.chart.mean").count() == 3 and page.locator("svg.chart.histogram").count() == 1
    assert axe_violations(page) == []


def test_the_admins_survey_page_with_the_new_kinds_has_no_violations(live_server, page, kinds_survey):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    log_in(page, f"{live_server.url}/admin/login/", "admin", f"/admin/collection/survey/{kinds_survey.pk}/change/")
    page.wait_for_selector("#questions-0 .privacy-live-figures")
    assert axe_violations(page) == []

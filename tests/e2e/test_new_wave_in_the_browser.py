""""Run again as a new wave" in a real browser: the admin sees each question's cost both ways before anything is
made (the page whole, WCAG 2.2 AA, under the strict CSP), cannot make the wave without choosing, chooses remembered
randomization, and then sees on the new wave's survey page the respondents the estimates API plans with (its reports
read through both layers), in the live figures the page's script asks for."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from surveys.collection import builder
from surveys.collection.models import Series, Survey
from tests.collection.test_wave_costs_page import expected_rows
from tests.e2e.conftest import axe_violations
from tests.e2e.test_staff_pages import csp_violations, log_in
from tests.factories import HEALTH_QUESTIONS, PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

HEADERS = ["Question", "Afresh in every wave", "Remembered across waves", "ε per wave", "Respondents for ±5 points",
           "ε per wave", "ε of all waves, same answer", "Respondents for ±5 points"]


def test_an_admin_sees_both_costs_chooses_and_the_waves_figures_are_the_estimates(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey = builder.create_survey("health", "Health", HEALTH_QUESTIONS, status=Survey.Status.OPEN,
                                   epsilon_budget=6.0)
    violations = csp_violations(page)
    log_in(page, f"{live_server.url}/admin/login/", "admin", f"/admin/collection/survey/{survey.pk}/change/")
    page.click("a.survey-new-wave")
    page.wait_for_selector("#wave-costs")
    rows = expected_rows([q.text for q in survey.ordered_questions()])
    assert [t.strip() for t in page.locator("#wave-costs thead th").all_text_contents()] == HEADERS  # as written
    assert [row.locator("th, td").all_inner_texts() for row in page.locator("#wave-costs tbody tr").all()] == rows
    assert axe_violations(page) == []

    page.click("#new-wave-form [type=submit]")  # nothing chosen: the browser asks, nothing is made
    assert page.url.endswith("/new-wave/") and not Series.objects.exists()
    page.check("input[name=remembered][value=remembered]")
    page.click("#new-wave-form [type=submit]")
    expect(page.locator(".messagelist")).to_contain_text("wave 2 is a draft")
    wave = Survey.objects.get(wave=2)
    assert wave.series.remembered is True

    planned = [q["planner"]["respondents_needed"] for q in page.request.get(
        live_server.url + reverse("aggregation:api-estimates", args=[wave.slug]) + "?interval=wilson").json()[
        "questions"]]
    assert planned == [int(row[5]) for row in rows]
    page.goto(f"{live_server.url}/admin/collection/survey/{wave.pk}/change/")
    for i, needed in enumerate(planned):
        expect(page.locator(f"#questions-{i} .field-privacy .readonly")).to_contain_text(
            f"{needed:,} respondents for ±5 points at 95%; a guess")
    assert violations == []

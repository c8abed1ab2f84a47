"""A researcher opens a dashboard in a real browser: with few responses a banner stands in for each
question's estimates; with the planner's number of respondents the figures are there. Under the CSP,
with the respondent link's copy button working."""

import pytest

from surveys.aggregation.results import service as results
from surveys.collection import builder, demo
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.e2e.test_staff_pages import csp_violations, log_in
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def small_survey(slug, owner):
    survey = builder.create_survey(slug, f"Small survey {slug}", [
        QuestionSpec("Ever skipped a class?", "bitflip", epsilon=2.0),
        QuestionSpec("Favourite season?", "krr", epsilon=2.0, options=["Spring", "Summer", "Autumn", "Winter"]),
    ], status=Survey.Status.OPEN, epsilon_budget=5.0)
    survey.researchers.add(owner)
    return survey


def test_few_responses_show_the_banner_and_enough_show_the_figures(live_server, page, context):
    owner = make_user("researcher")
    few, many = small_survey("few", owner), small_survey("many", owner)
    builder.simulate_responses(few, 2, {}, seed=1)
    needed = results.survey_results(many).needed  # the most any question needs at ±5 points
    builder.simulate_responses(many, needed, {1: [0.7, 0.3], 2: demo.TRUTH[3]}, seed=2)
    violations = csp_violations(page)
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/few/")

    assert page.locator(".notice.early").count() == 2
    assert "2 of " in page.locator(".notice.early").first.text_content()
    assert page.locator("svg.chart.estimates").count() == 0 and page.locator("table.estimates").count() == 0
    assert page.locator("table.secondary").count() == 2  # the randomized counts stay
    assert page.locator("svg.chart.daily").count() == 1 and page.locator(".share svg").count() == 1

    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.click("button[data-copy=share-url]")
    page.wait_for_function("document.querySelector('.share-copied').textContent !== ''")
    assert page.evaluate("navigator.clipboard.readText()") == f"{live_server.url}/s/few/"

    page.goto(f"{live_server.url}/results/many/")
    assert page.locator(".notice.early").count() == 0
    assert page.locator("svg.chart.estimates[role=img]").count() == 2
    assert page.locator("table.estimates").count() == 2
    assert "enough" in page.locator(".survey-planner").text_content()
    assert violations == []

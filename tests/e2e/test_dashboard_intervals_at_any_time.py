"""A researcher watches an open survey's dashboard in a real browser: its intervals are labelled as valid
however often you look (confidence sequences, with their planning size); once the survey is closed the same
page shows fixed-n intervals, labelled so. Under the CSP, with axe-core finding nothing."""

import pytest

from surveys.aggregation import params
from surveys.aggregation.results import service as results
from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.e2e.conftest import axe_violations
from tests.e2e.test_staff_pages import csp_violations, log_in
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)
ANYTIME_WORDS = "Intervals valid however often you look (confidence sequences)"


def test_an_open_survey_shows_intervals_valid_at_any_time_and_a_closed_one_fixed_n(live_server, page):
    owner = make_user("researcher")
    survey = builder.create_survey("watched", "Watched survey", [
        QuestionSpec("Ever skipped a class?", "bitflip", epsilon=2.0),
    ], status=Survey.Status.OPEN, epsilon_budget=5.0)
    survey.researchers.add(owner)
    found = results.survey_results(survey)
    builder.simulate_responses(survey, found.needed, {1: [0.7, 0.3]}, seed=3)
    found = results.survey_results(survey)
    row = found.questions[0].rows[1]
    violations = csp_violations(page)
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/watched/")

    kind = page.locator("#interval-kind")
    assert kind.get_attribute("data-interval") == "anytime"
    assert f"{ANYTIME_WORDS}, planned for {found.planned} respondents at 95%." in kind.text_content()
    caption = page.locator("table.estimates caption").text_content()
    assert "intervals valid however often you look" in caption
    assert f"{row.ci_low * 100:.1f}% – {row.ci_high * 100:.1f}%" in page.locator("table.estimates").text_content()
    assert page.locator("select[name=interval] option[selected]").get_attribute("value") == "anytime"
    assert axe_violations(page) == []

    survey.status = Survey.Status.CLOSED
    survey.save(update_fields=["status"])
    page.goto(f"{live_server.url}/results/watched/")
    kind = page.locator("#interval-kind")
    assert kind.get_attribute("data-interval") == params.FIXED_DEFAULT
    assert "Fixed-n intervals" in kind.text_content() and "valid however often" not in kind.text_content()
    caption = page.locator("table.estimates caption").text_content()
    assert "valid however often" not in caption and "Wilson" in caption
    closed = results.survey_results(survey).questions[0].rows[1]
    assert f"{closed.ci_low * 100:.1f}% – {closed.ci_high * 100:.1f}%" in page.locator("table.estimates").text_content()
    assert (closed.ci_low, closed.ci_high) != (row.ci_low, row.ci_high)
    assert axe_violations(page) == []
    assert violations == []

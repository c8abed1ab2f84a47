"""Relating answers end to end: a survey with a direct question (age band) and two randomized ones
is answered through the respondent page by many simulated respondents whose true answers follow a
planted association; the cross-tab on the dashboard recovers it within its intervals.

The browsers randomize with their own Web Crypto, so the check is statistical: every cell's 99.9%
interval must hold the planted fraction (all four together fail with probability at most 0.4%,
Bonferroni), and the independence test must reject. The true answers are apportioned exactly, so the
planted table is the respondents' own joint distribution.

N is small because every respondent is a page load. The planted difference (80% of the young drove
after drinking, 20% of the others) is 7 standard errors at N = 120 once the bit flip at epsilon 3
(4.7% flipped) is debiased, so the independence test misses 1e-3 with probability below 1e-4; the
intervals' coverage does not depend on N (the statistics tests check it by simulation)."""

import pytest
from django.contrib.auth import get_user_model

from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Response, Survey
from tests.e2e.conftest import axe_violations
from tests.e2e.test_staff_pages import log_in
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)
N = 120
# True joint fractions of (age band, drove drunk): rows Under 30 / 30 or over, columns No / Yes.
PLANTED = [[0.10, 0.40], [0.40, 0.10]]
CONFIDENCE = 0.999


def respondents() -> list[tuple[int, int, int]]:
    """(age, drove, smoker) per respondent: the planted table times N exactly; smoking unrelated."""
    cells = [(age, drove) for age in (0, 1) for drove in (0, 1) for _ in range(round(PLANTED[age][drove] * N))]
    assert len(cells) == N
    return [(age, drove, i % 2) for i, (age, drove) in enumerate(cells)]


def test_the_dashboard_recovers_an_association_planted_in_answers_sent_through_the_page(live_server, page):
    survey = builder.create_survey("relating", "Relating", [
        QuestionSpec("Your age band?", "direct", options=["Under 30", "30 or over"]),
        QuestionSpec("Have you driven after drinking?", "bitflip", epsilon=3.0),
        QuestionSpec("Do you smoke?", "qrr", q="0.9"),
    ], status=Survey.Status.OPEN, epsilon_budget=10)
    for age, drove, smoker in respondents():
        page.goto(f"{live_server.url}/s/relating/")
        if page.locator("#already-sent").is_visible():
            page.click("#respond-again")
        questions = page.locator("fieldset.question")
        for number, answer in enumerate((age, drove, smoker)):
            questions.nth(number).locator("input[type=radio]").nth(answer).check()
        page.click("#send")
        page.wait_for_selector("#receipt:not([hidden])")
    assert Response.objects.filter(survey=survey).count() == N

    get_user_model().objects.create_superuser(username="researcher", password=PASSWORD)
    age, drove, _ = plan.of(survey).questions
    query = f"a={age.id}&b={drove.id}&confidence={CONFIDENCE}"
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/")
    page.goto(f"{live_server.url}/results/relating/?{query}")
    assert "Under 30" in page.locator("#relating").inner_text()
    assert axe_violations(page) == []
    found = page.request.get(f"{live_server.url}/api/v1/surveys/relating/crosstab/?{query}").json()
    assert found["n"] == N
    joint = found["joint"]
    for row in (0, 1):
        for column in (0, 1):
            assert joint["ci_low"][row][column] <= PLANTED[row][column] <= joint["ci_high"][row][column], (
                row, column, joint)
    assert found["independence"]["related"] and found["independence"]["p_value"] < 1e-3
    drove_given_age = found["b_given_a"]["estimate"]
    assert drove_given_age[0][1] > drove_given_age[1][1]  # the young drove drunk more often

"""A researcher who is not staff sets a survey's population margins in a real browser: from the dashboard's offer
to the margins page, a census table pasted for one question and shares typed for another, a mistake shown beside
its question, then saved and the weighted dashboard naming the margins it used; no accessibility violation on the
way (axe-core, WCAG 2.2 AA)."""

import pytest

from surveys.aggregation.models import PopulationMargin
from tests.aggregation.support import add_responses
from tests.e2e.conftest import axe_violations
from tests.e2e.test_accessibility import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_researcher_sets_margins_on_the_page_and_the_dashboard_weights_to_them(live_server, page, direct_survey):
    add_responses(direct_survey, 60, seed=5)
    q = {question.order: question.pk for question in direct_survey.ordered_questions()}
    log_in(page, f"{live_server.url}/accounts/login/", "owner", f"/results/{direct_survey.slug}/")
    page.click("text=Set population margins")
    page.wait_for_selector("form.margins-form")
    assert axe_violations(page) == [], "the margins page"

    page.fill(f"#table-{q[2]}", "option,share\n18-34,0.3\n35-54,0.4\n55+,0.2\n")  # adds up to 0.9
    page.fill(f"#source-{q[2]}", "Census 2021, table P12")
    for j, share in enumerate(["0.25", "0.25", "0.3", "0.2"]):
        page.fill(f"#share-{q[4]}-{j}", share)
    page.fill(f"#source-{q[4]}", "Regional register")
    page.click("text=Save the population margins")
    page.wait_for_selector(f"#problems-{q[2]}")
    assert page.locator(f"#problems-{q[2]} li").all_text_contents() == [
        "question 2 “Age band?”: the shares must add up to 1; they add up to 0.9."]
    assert axe_violations(page) == [], "the page with its problems"
    assert not PopulationMargin.objects.exists()

    page.fill(f"#table-{q[2]}", "option,share\n18-34,0.3\n35-54,0.4\n55+,0.3\n")
    page.click("text=Save the population margins")
    page.wait_for_selector("text=The population margins were saved.")
    page.click("text=Back to the results")
    page.click("text=Show figures weighted to the population margins")
    page.wait_for_selector("#weights")
    shown = page.locator("#weights li").all_text_contents()
    assert [" ".join(item.split()) for item in shown] == [
        "Age band? (Census 2021, table P12): 18-34 30.0%, 35-54 40.0%, 55+ 30.0%",
        "Region? (Regional register): North 25.0%, East 25.0%, South 30.0%, West 20.0%"]
    assert axe_violations(page) == [], "the weighted dashboard"

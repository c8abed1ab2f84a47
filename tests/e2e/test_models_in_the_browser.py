"""The dashboard's Models section with a fitted model (its table and forest plot) passes axe-core's WCAG 2.2 A and
AA checks."""

from urllib.parse import quote

import pytest

from surveys.collection import plan
from tests.aggregation.model_support import answer, make_survey
from tests.e2e.conftest import axe_violations
from tests.e2e.test_accessibility import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_dashboard_with_a_model_has_no_violations(live_server, page, owner):
    survey = make_survey(owner)
    answer(survey, 600)
    ids = {q.order: q.id for q in plan.of(survey)}
    query = f"outcome={ids[1]}&covariates={ids[2]},{ids[3]},{ids[4]}&margin=0.2"
    log_in(page, f"{live_server.url}/accounts/login/", owner.username, quote(f"/results/{survey.slug}/?{query}"))
    assert page.locator("svg.chart.forest circle.marker").count() == 4
    assert axe_violations(page) == []


def test_sex_and_age_without_the_age_band_and_a_formula_with_an_interaction_fit_from_the_page(live_server, page,
                                                                                               owner):
    """The form as a researcher uses it: sex and age in years ticked, the age band (whose reference option the
    form sends anyway) not; then the Advanced box's formula with an interaction. Both fit, and pass axe."""
    survey = make_survey(owner)
    answer(survey, 600)
    ids = {q.order: q.id for q in plan.of(survey)}
    log_in(page, f"{live_server.url}/accounts/login/", owner.username, quote(f"/results/{survey.slug}/?margin=0.2"))
    form = page.locator("form.model-picker")
    form.locator(f'input[name="covariates"][value="{ids[3]}"]').check()
    form.locator(f'input[name="covariates"][value="{ids[4]}"]').check()
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#model table.model-table")
    assert page.locator("[role=alert]").count() == 0
    assert page.locator("svg.chart.forest circle.marker").count() == 2
    assert page.locator("#model table.model-table tbody tr").count() == 3
    assert axe_violations(page) == []
    page.locator("details.model-formula summary").click()
    page.fill('details.model-formula input[name="formula"]', "q1 ~ q3 * I(q4 / 10)")
    page.locator("details.model-formula button[type=submit]").click()
    page.wait_for_url(lambda url: "formula=" in url)
    page.wait_for_selector("#model table.model-table")
    assert page.locator("[role=alert]").count() == 0
    assert page.locator("#model table.model-table tbody th").all_inner_texts()[-1] == "q3[T.1]:I(q4 / 10)"
    assert axe_violations(page) == []

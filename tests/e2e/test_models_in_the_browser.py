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

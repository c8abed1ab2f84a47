"""The dashboard's "Synthetic data" section, once its file is prepared (the quality report and its warnings open),
passes axe-core's WCAG 2.2 A and AA checks."""

from surveys.collection import demo
from tests.e2e.conftest import axe_violations
from tests.e2e.test_accessibility import log_in
from tests.factories import make_user


def test_the_synthetic_section_with_its_quality_report_has_no_violations(live_server, page):
    owner = make_user("researcher")
    kinds, _ = demo.create_types_survey()
    kinds.researchers.add(owner)
    demo.simulate_types_responses(kinds, 300, seed=3)
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/")
    assert page.request.get(f"{live_server.url}/results/{kinds.slug}/export/synthetic.csv").status == 200
    page.goto(f"{live_server.url}/results/{kinds.slug}/")
    page.locator("#synthetic-heading ~ details summary").click()
    assert page.locator("#synthetic-heading ~ details li").count() > 0
    assert axe_violations(page) == [], "the Synthetic data section"

"""The privacy statement in Chromium, in English and in Arabic (right to left): no accessibility violation
(axe-core, WCAG 2.2 AA), and printed to a PDF with the print stylesheet (navigation left out)."""

import pytest
from django.utils import translation

from tests.aggregation.support import add_responses
from tests.e2e.conftest import axe_violations
from tests.e2e.test_accessibility import log_in

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("locale, direction", [("en", "ltr"), ("ar", "rtl")])
def test_the_statement_reads_without_violations_and_prints_to_pdf(live_server, page_in_locale, direct_survey,
                                                                   locale, direction):
    with translation.override(locale):  # the catalogs' words (the lead merges this branch's into them)
        heading = translation.gettext("What a stolen database reveals")
    add_responses(direct_survey, 40, seed=7)
    page = page_in_locale(locale)
    log_in(page, f"{live_server.url}/accounts/login/", "owner", f"/results/{direct_survey.slug}/statement/")
    page.wait_for_selector("#breach-heading")
    assert (page.locator("html").get_attribute("dir"), page.locator("#breach-heading").inner_text()) == (
        direction, heading)
    assert axe_violations(page) == [], f"the statement in {locale}"
    page.emulate_media(media="print")
    assert not page.locator("nav.researcher").is_visible()  # print.css leaves the navigation out
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF-") and len(pdf) > 10_000
    page.emulate_media(media="screen")

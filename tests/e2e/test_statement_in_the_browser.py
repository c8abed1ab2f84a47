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


def test_a_waves_statement_with_a_number_in_bands_reads_without_violations(live_server, page_in_locale, owner):
    """A remembered wave (its one-wave and every-wave figures) with a number sent as given (the export in bands,
    linked): the sections these add pass axe too."""
    from surveys.collection import builder
    from surveys.collection.builder import QuestionSpec
    from tests.aggregation.series_support import monthly, panel_reports

    age = QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"))
    surveys = monthly(owner, waves=2, extra=(age,))
    for wave, values in panel_reports(surveys, 60, seed=3).items():
        builder.write_responses(surveys[wave - 1], values)
    page = page_in_locale("en")
    log_in(page, f"{live_server.url}/accounts/login/", "owner", f"/results/{surveys[0].slug}/statement/")
    page.wait_for_selector("#breach-waves-1")
    assert page.locator("#statement-bands a").get_attribute("href").endswith("?direct=bands")
    assert axe_violations(page) == [], "the statement of a wave with a number in bands"

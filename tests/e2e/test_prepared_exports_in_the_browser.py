"""A researcher's browser and a prepared export: the link answers "being prepared" with the progress, the
page asks again by itself (a Refresh header: the page has no script) and the browser downloads the whole
file once it is written; that page, the dashboard listing ready, running and failed preparations, and the
pages of an export no longer kept or failed pass axe-core's WCAG 2.2 A and AA checks in every language.
The preparation runs in a background thread, as in production, held at a row (tests/aggregation/held_export.py)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from surveys.aggregation.exports import reports as exports
from surveys.aggregation.models import PreparedExport
from surveys.collection import plan
from tests.aggregation.held_export import Gate
from tests.aggregation.support import add_responses
from tests.e2e.conftest import axe_violations
from tests.e2e.test_accessibility import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def without_refresh(page):
    """The page as it is now, loaded again in a tab that drops its Refresh header: on a loaded machine
    axe's run outlasts the refresh, which would destroy the page axe is reading."""
    still = page.context.new_page()

    def drop_refresh(route):
        response = route.fetch()
        route.fulfill(response=response, headers={name: value for name, value in response.headers.items()
                                                  if name.lower() != "refresh"})
    still.route("**/*", drop_refresh)
    still.goto(page.url)
    return still


def test_the_browser_is_told_it_is_being_prepared_then_downloads_the_whole_file(
        live_server, page, owner, survey, background, monkeypatch):
    add_responses(survey, 40, seed=3)
    expected = "".join(exports.report_csv_lines(survey, plan.of(survey))).encode()
    gate = Gate(monkeypatch, at=21)
    log_in(page, f"{live_server.url}/accounts/login/", "owner", "/results/")
    response = page.goto(f"{live_server.url}/results/health/export/reports.csv")
    assert response.status == 202 and page.locator("h1").inner_text() == "Preparing health-reports.csv"
    assert gate.reached.wait(30)
    page.wait_for_selector('progress[max="40"][value="20"]')  # after a refresh or two
    assert "20 of 40 responses written." in page.locator("[role=status]").inner_text()
    assert axe_violations(without_refresh(page)) == [], "being prepared"
    with page.expect_download(timeout=30_000) as download:
        gate.open.set()
    assert download.value.suggested_filename == "health-reports.csv"
    assert open(download.value.path(), "rb").read() == expected


def test_the_export_pages_and_the_dashboards_exports_have_no_violations(live_server, page_in_language, owner,
                                                                        survey, background, language, settings):
    add_responses(survey, 40, seed=3)
    page = page_in_language()
    log_in(page, f"{live_server.url}/accounts/login/", "owner", "/results/")
    assert page.goto(f"{live_server.url}/results/health/export/reports.csv?export=0").status == 410
    assert axe_violations(page) == [], "no longer kept"
    settings.EXPORT_WAIT = 30  # small: ready within the wait
    assert page.request.get(f"{live_server.url}/results/health/export/reports.csv").status == 200
    now = timezone.now()
    running = PreparedExport.objects.create(survey=survey, format="json", created_at=now, heartbeat_at=now, rows=10,
                                            responses=40)
    failed = PreparedExport.objects.create(survey=survey, format="dta", status="failed", created_at=now,
                                           heartbeat_at=now, finished_at=now, expires_at=now + timedelta(hours=1))
    assert page.goto(f"{live_server.url}/results/health/export/reports.json?export={running.pk}").status == 202
    assert axe_violations(without_refresh(page)) == [], "being prepared"
    # The 'being prepared' tab's Refresh is pending and would race any later navigation in it: close the tab and
    # go on in a new one of the same context (signed in).
    preparing, page = page, page.context.new_page()
    preparing.close()
    assert page.goto(f"{live_server.url}/results/health/export/reports.dta?export={failed.pk}").status == 500
    assert axe_violations(page) == [], "failed"
    page.goto(f"{live_server.url}/results/health/")
    assert page.locator("section.exports ul.prepared").count() == 3
    assert axe_violations(page) == [], "the dashboard's prepared exports"

"""Pinned client code in Chromium (issue 14, item 2): the page runs its honest modules under the pins and
the strict CSP; a randomizer swapped by the server (the page left as it is) is refused and nothing is sent."""

import pytest

from tests.e2e.privacy import EVERY_MECHANISM, record, serve_modified, served_text, survey_with

pytestmark = pytest.mark.django_db(transaction=True)
TRUTH_OUT = ("export function randomizeAnswer(", "export function randomizeAnswer_(")


def test_the_pinned_page_runs_and_sends(live_server, page):
    survey = survey_with(EVERY_MECHANISM[:3])
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").first.check()
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert errors == []


def test_a_swapped_randomizer_is_refused_and_nothing_is_sent(live_server, page):
    survey = survey_with(EVERY_MECHANISM[:3])
    serve_modified(page, "randomizer.js", TRUTH_OUT, unpin=False)
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    requests = record(page)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert TRUTH_OUT[1] in served_text(page, "/static/js/randomizer.js")
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").first.check()
    page.wait_for_timeout(300)
    assert page.locator("#send").is_disabled()  # respond.js never ran: its imports failed their integrity
    assert any("integrity" in error.lower() for error in errors), errors
    assert not [r for r in requests if r["method"] == "POST"]

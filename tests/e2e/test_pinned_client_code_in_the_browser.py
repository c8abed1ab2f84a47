"""Pinned client code in Chromium (issue 14, item 2): the page runs its honest modules under the pins and
the strict CSP; a randomizer swapped by the server (the page left as it is) is refused and nothing is sent. The waves'
modules load only on a wave's page, pinned and published like the others, and a swapped one is refused there."""

import pytest

from surveys.collection import waves
from surveys.collection.models import Survey
from tests.e2e.conftest import axe_violations
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


WAVES_ONLY = {"waves.js", "history.js", "remember.js"}  # what only a wave's page loads (integrity.FEATURES)


def loaded_scripts(page, requests, url):
    """The module scripts the page at `url` loaded, by file name, once it is interactive."""
    del requests[:]
    page.goto(url)
    page.wait_for_selector("#send:enabled")
    return {request["url"].rsplit("/", 1)[1] for request in requests if request["url"].endswith(".js")}


def pinned_on(page):
    """The scripts the page pins (its entry's and its preloads' integrity), by file name."""
    return {url.rsplit("/", 1)[1] for url in page.evaluate("""() => [...document.querySelectorAll(
        'script[type=module][integrity], link[rel=modulepreload][integrity]')].map((e) => e.src || e.href)""")}


def test_only_a_waves_page_loads_the_waves_modules_and_each_module_loaded_is_pinned_and_published(live_server, page):
    lone = survey_with(EVERY_MECHANISM[:3])
    first = survey_with(EVERY_MECHANISM[:3], slug="first")
    second = waves.run_again(first, remembered=True)
    Survey.objects.filter(pk=second.pk).update(status=Survey.Status.OPEN)
    published = {module["url"].rsplit("/", 1)[1]
                 for module in page.request.get(f"{live_server.url}/api/v1/surveys/{lone.slug}/").json()["client_code"]}
    requests = record(page)

    alone = loaded_scripts(page, requests, f"{live_server.url}/s/{lone.slug}/")
    assert not alone & WAVES_ONLY, alone
    assert alone == pinned_on(page) and alone <= published
    assert axe_violations(page) == []

    wave = loaded_scripts(page, requests, f"{live_server.url}/s/{second.slug}/")
    assert wave == alone | WAVES_ONLY
    assert wave == pinned_on(page) and wave <= published
    page.wait_for_selector("#client-history:not([hidden])")  # waves.js ran: the waves' total is said
    assert axe_violations(page) == []


def test_a_swapped_waves_module_is_refused_on_a_waves_page_and_nothing_is_sent(live_server, page):
    """history.js is what waves.js imports, preloaded with its integrity: swapped (the total made 0), it is refused,
    waves.js does not run, and respond.js, finding no hooks of the page's feature, says so and sends nothing."""
    first = survey_with(EVERY_MECHANISM[:3], slug="first")
    second = waves.run_again(first, remembered=True)
    Survey.objects.filter(pk=second.pk).update(status=Survey.Status.OPEN)
    serve_modified(page, "history.js", ("return totalLoss(losses);", "return totalLoss([]);"), unpin=False)
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    requests = record(page)
    page.goto(f"{live_server.url}/s/{second.slug}/")
    page.wait_for_selector("#status:has-text('cannot take part')")
    assert page.inner_text("#status") == (
        "The part of this page that works out what the waves of this series cost did not load. This browser cannot "
        "take part; please use an up-to-date browser.")
    assert page.locator("#send").is_disabled() and page.locator("#client-history").is_hidden()
    assert any("integrity" in error.lower() for error in errors), errors
    fetched = [r["url"] for r in requests if r["url"].endswith("/history.js")]
    assert fetched == [f"{live_server.url}/static/js/history.js"]  # once: not again without its pin
    assert "return totalLoss([]);" in served_text(page, "/static/js/history.js")  # the swap was served
    assert not [r for r in requests if r["method"] == "POST"]

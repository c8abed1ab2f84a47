"""Nothing true leaves the page: every request is recorded while respondents answer.

With crypto.getRandomValues made deterministic, two respondents with different true
answers must produce the same requests except for the randomized reports themselves; so
no URL, header or body carries anything derived from a true answer but the reports.
A direct question (not randomized) is the identity channel: its report is the answer as given,
and it is the only true answer that leaves.
"""

import itertools
import json

import pytest

from surveys.collection import plan
from surveys.collection.models import Response
from tests.e2e.privacy import (
    CANARY,
    DETERMINISTIC_CRYPTO,
    EVERY_MECHANISM,
    record,
    serve_modified,
    served_text,
    survey_with,
    without_reports,
)

pytestmark = pytest.mark.django_db(transaction=True)

LEAK_TRUTH = ("const payload = { version: config.version, key: uuidFromWords(), reports };",
              "const payload = { version: config.version, key: uuidFromWords(), reports, note: answers.join() };")


def respond(browser, url, truth, tamper=None):
    """One respondent answering option `truth` (or the last option, if fewer) everywhere."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(DETERMINISTIC_CRYPTO)
    if tamper:
        serve_modified(page, "respond.js", tamper)
    requests = record(page)
    page.goto(url)
    if tamper:
        assert tamper[1] in served_text(page, "/static/js/respond.js")
        requests.clear()
    for fieldset in page.locator("fieldset.question").all():
        radios = fieldset.locator("input[type=radio]")
        radios.nth(min(truth, radios.count() - 1)).check()
    page.click("#send")
    page.wait_for_function("() => !document.getElementById('receipt').hidden "
                           "|| document.getElementById('status').textContent.startsWith('Not sent')")
    context.close()
    return requests


def differences(run_a, run_b):
    """Requests of one run with no identical counterpart in the other, reports and CSRF masked.

    Compared as multisets: the page's static files load in parallel, in no fixed order.
    """
    masked_a = sorted(json.dumps(without_reports(r), sort_keys=True) for r in run_a)
    masked_b = sorted(json.dumps(without_reports(r), sort_keys=True) for r in run_b)
    return [pair for pair in itertools.zip_longest(masked_a, masked_b) if pair[0] != pair[1]]


def test_two_respondents_differ_only_in_their_randomized_reports(live_server, browser):
    survey = survey_with(EVERY_MECHANISM)
    url = f"{live_server.url}/s/{survey.slug}/"
    run_a = respond(browser, url, truth=0)
    assert Response.objects.count() == 1
    Response.objects.all().delete()  # the same random words make the same submission key
    run_b = respond(browser, url, truth=9)
    assert Response.objects.count() == 1

    assert differences(run_a, run_b) == []
    for request in run_a + run_b:
        assert request["url"].startswith(live_server.url + "/")  # no other origin
        assert "?" not in request["url"]
        assert CANARY not in json.dumps(request)
    posts = [r for r in run_a if r["method"] == "POST"]
    assert len(posts) == 1 and set(json.loads(posts[0]["body"])) == {"version", "key", "reports"}
    direct = [q for q in plan.of(survey) if not q.randomized]
    assert direct, "the audit survey has a direct question"
    for run, truth in [(run_a, 0), (run_b, 9)]:
        reports = json.loads(next(r for r in run if r["method"] == "POST")["body"])["reports"]
        for question in direct:  # sent as given, and only these
            assert reports[str(question.id)] == min(truth, question.mechanism.k - 1)


def test_a_page_that_sends_a_true_answer_is_caught(live_server, browser):
    survey = survey_with(EVERY_MECHANISM)
    url = f"{live_server.url}/s/{survey.slug}/"
    run_a = respond(browser, url, truth=0, tamper=LEAK_TRUTH)
    run_b = respond(browser, url, truth=9, tamper=LEAK_TRUTH)

    assert differences(run_a, run_b) != []
    assert Response.objects.count() == 0  # and the server refused the unknown field


def test_answers_are_kept_in_memory_only(live_server, page, context):
    survey = survey_with(EVERY_MECHANISM)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").first.check()
    stored = page.evaluate("""async () => ({
        local: localStorage.length, session: sessionStorage.length,
        databases: (await indexedDB.databases()).length, cookie: document.cookie,
    })""")
    assert stored["local"] == 0 and stored["session"] == 0 and stored["databases"] == 0
    assert [c["name"] for c in context.cookies()] == ["csrftoken"]

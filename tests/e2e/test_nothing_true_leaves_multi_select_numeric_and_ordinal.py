"""Nothing true leaves the page, for multi-select, numeric and ordinal questions too: with crypto.getRandomValues made
deterministic, two respondents with different ticks, numbers and levels make the same requests except for their
randomized reports; a page that leaks its answers is caught; and nothing is kept in storage."""

import json

import pytest

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Response, Survey
from tests.e2e.answering import answer
from tests.e2e.privacy import CANARY, DETERMINISTIC_CRYPTO, record, serve_modified, served_text
from tests.e2e.test_nothing_true_leaves import LEAK_TRUTH
from tests.e2e.test_nothing_true_leaves import differences as unmasked_differences

pytestmark = pytest.mark.django_db(transaction=True)

QUESTIONS = [
    QuestionSpec(f"Ticks {CANARY}", "multiselect", epsilon=2.0, kind="multi_select",
                 options=[f"{CANARY} {j}" for j in range(4)], at_most=2),
    QuestionSpec(f"Hours {CANARY}", "onebit", epsilon=1.0, kind="numeric", scale=("0", "100", "1")),
    QuestionSpec(f"Drinks {CANARY}", "dlaplace", epsilon=1.0, kind="numeric", scale=("0", "10", "0.5")),
    QuestionSpec(f"Age {CANARY}", "krr", epsilon=1.0, kind="numeric", scale=("0", "120", "1"),
                 options=[f"{CANARY} young", f"{CANARY} old"], edges=["0", "50"]),
    QuestionSpec(f"Level {CANARY}", "sue", epsilon=1.0, kind="ordinal",
                 options=[f"{CANARY} low", f"{CANARY} high", "Prefer not to say"], scores=["1", "2", None]),
]
TRUTHS = {"a": [[0], "3", "0.5", "17", 0], "b": [[1, 3], "97", "9.5", "88", 2]}


@pytest.fixture
def url(live_server):
    survey = builder.create_survey("kinds-audit", "Audit", QUESTIONS, status=Survey.Status.OPEN, epsilon_budget=20)
    return f"{live_server.url}/s/{survey.slug}/"


def differences(run_a, run_b):
    """As for the other kinds, with the body's length masked too: a noisy number's report can take more
    digits than another (the length follows the randomized reports, which are masked already)."""
    def masked(run):
        return [{**r, "headers": {k: v for k, v in r["headers"].items() if k != "content-length"}} for r in run]
    return unmasked_differences(masked(run_a), masked(run_b))


def respond(browser, url, truth, tamper=None):
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
    page.wait_for_selector("#send:enabled")
    answer(page, TRUTHS[truth])
    page.click("#send")
    page.wait_for_function("() => !document.getElementById('receipt').hidden "
                           "|| document.getElementById('status').textContent.startsWith('Not sent')")
    context.close()
    return requests


def test_two_respondents_of_the_new_kinds_differ_only_in_their_randomized_reports(browser, url):
    run_a = respond(browser, url, "a")
    Response.objects.all().delete()  # the same random words make the same submission key
    run_b = respond(browser, url, "b")
    assert Response.objects.count() == 1

    assert differences(run_a, run_b) == []
    for request in run_a + run_b:
        assert request["url"].startswith(url.split("/s/")[0] + "/") and "?" not in request["url"]
        assert CANARY not in json.dumps(request)
    posts = [r for r in run_b if r["method"] == "POST"]
    assert len(posts) == 1 and set(json.loads(posts[0]["body"])) == {"version", "key", "reports"}


def test_a_page_that_sends_the_new_kinds_true_answers_is_caught(browser, url):
    run_a = respond(browser, url, "a", tamper=LEAK_TRUTH)
    run_b = respond(browser, url, "b", tamper=LEAK_TRUTH)
    assert differences(run_a, run_b) != []
    assert Response.objects.count() == 0  # and the server refused the unknown field


def test_the_new_kinds_answers_are_kept_in_memory_only(browser, url):
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#send:enabled")
    answer(page, TRUTHS["b"])
    stored = page.evaluate("""async () => ({
        local: localStorage.length, session: sessionStorage.length,
        databases: (await indexedDB.databases()).length, cookie: document.cookie,
    })""")
    assert stored["local"] == 0 and stored["session"] == 0 and stored["databases"] == 0
    assert [c["name"] for c in context.cookies()] == ["csrftoken"]
    context.close()

"""The respondent's browser does not take the server's word: it computes epsilon from the integers
it will use and refuses integers above the stated total or 10 per question (sending nothing), and it
keeps a randomized payload until the server acknowledges it, resending it as it is after a reload."""

import html
import json
import math
import re

import pytest
from playwright.sync_api import expect

from surveys.collection import demo
from surveys.collection.models import Report, Response
from tests.e2e.conftest import agree, axe_violations

pytestmark = pytest.mark.django_db(transaction=True)
DATA = re.compile(r'(<script id="survey-data" type="application/json">)(.*?)(</script>)', re.S)


def answer_every_question(page):
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").last.check()


def serve_forged(page, url, forge):
    """Serve the respondent page with its survey data changed by `forge` (as a compromised server would)."""
    def handle(route):
        response = route.fetch()
        body = response.text()
        found = DATA.search(body)
        data = forge(json.loads(html.unescape(found.group(2))))
        body = body[:found.start(2)] + json.dumps(data).replace("<", "\\u003C") + body[found.end(2):]
        route.fulfill(response=response, body=body)
    page.route(url, handle)


def open_demo(live_server, page, forge=None):
    survey, _ = demo.create_demo_survey()
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    url = f"{live_server.url}/s/{survey.slug}/"
    if forge:
        serve_forged(page, url, forge)
    page.goto(url)
    if not forge:  # a forged page is refused before any consent is asked
        agree(page)
    return survey, posts


def inflate(data):
    """The first question's integers made to allow epsilon ln(2^32 - 3), about 22, for a yes/no question."""
    data["questions"][0]["sampler"] = {"kind": "grr", "k": 2, "modulus": 2**32 - 2, "keep": 2**32 - 3, "other": 1}
    return data


def test_integers_above_ten_for_a_question_are_refused_in_words_and_nothing_is_sent(live_server, page):
    survey, posts = open_demo(live_server, page, inflate)
    refusal = page.locator("#refusal")
    refusal.wait_for()
    assert "question 1 allow a privacy loss of ε\xa0=\xa022.181" in refusal.text_content()
    assert "above the maximum of 10" in refusal.text_content() and "Nothing has been sent" in refusal.text_content()
    assert page.locator("#send").is_disabled() and page.locator("#client-epsilon").is_hidden()
    answer_every_question(page)
    page.locator("#send").dispatch_event("click")  # even a click on the disabled button does nothing
    page.wait_for_timeout(300)
    assert posts == [] and Response.objects.count() == 0
    assert axe_violations(page) == []


def test_integers_above_the_stated_total_are_refused_in_words_and_nothing_is_sent(live_server, page):
    def understate(data):  # honest integers, a stated total below what they allow
        data["epsilonTotal"] = 1.0
        return data

    survey, posts = open_demo(live_server, page, understate)
    refusal = page.locator("#refusal")
    refusal.wait_for()
    assert "above the ε\xa0=\xa01.000 this survey states" in refusal.text_content()
    answer_every_question(page)
    page.locator("#send").dispatch_event("click")
    page.wait_for_timeout(300)
    assert posts == [] and Response.objects.count() == 0


def test_the_page_and_the_receipt_show_the_epsilon_the_browser_computed(live_server, page):
    survey, posts = open_demo(live_server, page)
    total = math.ceil(sum(q.mechanism().effective_epsilon for q in survey.ordered_questions()) * 1000) / 1000
    line = page.locator("#client-epsilon")
    line.wait_for()
    assert f"at most ε\xa0=\xa0{total:.3f} for all questions together" in line.text_content()
    answer_every_question(page)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert f"at most ε\xa0=\xa0{total:.3f}." in page.locator("#receipt-epsilon").text_content()


def test_a_lost_acknowledgement_and_a_reload_resend_the_same_reports_stored_once(live_server, page):
    survey, posts = open_demo(live_server, page)
    lost = []

    def drop_the_first_answer(route):
        if not lost:
            lost.append(route.fetch())  # the server stores it; the browser never hears back
            route.abort()
        else:
            route.continue_()

    page.route("**/responses/", drop_the_first_answer)
    answer_every_question(page)
    page.click("#send")
    expect(page.locator("#status")).to_contain_text("Could not reach the server")
    assert lost[0].status == 201 and Response.objects.count() == 1
    stored = page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('ldp-survey-pending:'))")
    assert len(stored) == 1 and "reports" in page.evaluate(f"localStorage.getItem({json.dumps(stored[0])})")

    page.reload()
    page.locator("#unsent").wait_for()
    assert page.locator("#survey").is_hidden() and page.locator("#already-sent").is_hidden()
    assert axe_violations(page) == []
    page.click("#resend")
    page.wait_for_selector("#receipt:not([hidden])")

    assert len(posts) == 2 and posts[0].post_data == posts[1].post_data  # byte for byte: never re-randomized
    assert Response.objects.count() == 1 and Report.objects.count() == len(survey.ordered_questions())
    stored = {str(r.question_id): r.value for r in Response.objects.get().reports.all()}
    assert stored == json.loads(posts[0].post_data)["reports"]
    assert page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('ldp-survey-pending:'))") == []
    page.reload()
    page.locator("#already-sent").wait_for()  # answering as another person: only after the acknowledgement
    assert page.locator("#unsent").is_hidden()


def test_kept_reports_can_be_discarded_and_only_then_answered_again(live_server, page):
    survey, posts = open_demo(live_server, page)
    page.route("**/responses/", lambda route: route.abort())
    answer_every_question(page)
    page.click("#send")
    expect(page.locator("#status")).to_contain_text("Could not reach the server")
    page.reload()
    page.locator("#unsent").wait_for()
    assert page.locator("#respond-again").is_hidden()
    page.click("#discard")
    page.wait_for_load_state()
    agree(page)  # answering afresh: the consent is asked again
    assert page.locator("#unsent").is_hidden() and not page.locator("#send").is_disabled()
    assert Response.objects.count() == 0

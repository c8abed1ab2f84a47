"""A respondent answers the demo survey in a real browser; only randomized reports arrive."""

import json

import pytest

from surveys.collection import demo
from surveys.collection.models import Report, Response

pytestmark = pytest.mark.django_db(transaction=True)


def answer_every_question(page):
    """Choose the last option of every question."""
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").last.check()


def open_demo(live_server, page):
    survey, _ = demo.create_demo_survey()
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    return survey, posts


def test_a_respondent_submits_and_sees_the_receipt(live_server, page):
    survey, posts = open_demo(live_server, page)
    answer_every_question(page)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")

    assert Response.objects.count() == 1
    response = Response.objects.get()
    stored = {str(r.question_id): r.value for r in response.reports.all()}
    questions = {str(q.pk): q for q in survey.ordered_questions()}
    assert stored.keys() == questions.keys()
    assert all(0 <= stored[qid] < questions[qid].k() for qid in stored)

    assert len(posts) == 1
    body = json.loads(posts[0].post_data)
    assert set(body) == {"version", "key", "reports"}
    assert {qid: value for qid, value in body["reports"].items()} == stored
    receipt = json.loads(page.locator("#receipt-body").text_content())
    assert receipt == body


def test_the_true_answers_are_cleared_after_sending(live_server, page):
    open_demo(live_server, page)
    answer_every_question(page)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert page.locator("input[type=radio]:checked").count() == 0


def test_it_submits_with_math_random_replaced_by_a_function_that_throws(live_server, page):
    page.add_init_script("Math.random = () => { throw new Error('Math.random must not be used'); };")
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    open_demo(live_server, page)
    answer_every_question(page)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert Report.objects.count() == 3
    assert errors == []


def test_it_asks_for_every_answer_and_sends_nothing_until_then(live_server, page):
    survey, posts = open_demo(live_server, page)
    page.locator("fieldset.question").first.locator("input[type=radio]").first.check()
    page.click("#send")
    assert page.locator(".problem:visible").count() == 2
    assert posts == [] and Response.objects.count() == 0


def test_it_refuses_to_submit_without_web_crypto(live_server, page):
    page.add_init_script("Object.defineProperty(globalThis, 'crypto', {value: undefined});")
    survey, posts = open_demo(live_server, page)
    assert page.locator("#send").is_disabled()
    assert "Web Crypto" in page.locator("#status").text_content()
    assert posts == [] and Response.objects.count() == 0


def test_without_javascript_nothing_can_be_submitted(live_server, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    survey, posts = open_demo(live_server, page)
    assert page.locator("noscript").count() == 1
    answer_every_question(page)
    page.locator("#send").click(force=True)
    page.wait_for_timeout(300)
    assert posts == [] and Response.objects.count() == 0
    context.close()

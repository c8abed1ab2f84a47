"""A respondent answers the demo survey in a real browser; only randomized reports arrive."""

import json

import pytest

from surveys.collection import demo
from surveys.collection.models import Report, Response
from tests.e2e.conftest import agree

pytestmark = pytest.mark.django_db(transaction=True)


def answer_every_question(page):
    """Choose the last option of every question."""
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").last.check()


def open_demo(live_server, page, agreeing=True):
    survey, _ = demo.create_demo_survey()
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    if agreeing:
        agree(page)
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
    survey, posts = open_demo(live_server, page, agreeing=False)  # refused before any consent is asked
    assert page.locator("#send").is_disabled()
    assert "Web Crypto" in page.locator("#status").text_content()
    assert posts == [] and Response.objects.count() == 0


def test_without_javascript_nothing_can_be_submitted(live_server, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    survey, _ = demo.create_demo_survey()
    survey.consent = ""  # its questions shown (with a consent text, they stay hidden without JavaScript)
    survey.save(update_fields=["consent"])
    survey, posts = open_demo(live_server, page, agreeing=False)
    assert page.locator("noscript").count() == 1
    answer_every_question(page)
    page.locator("#send").click(force=True)
    page.wait_for_timeout(300)
    assert posts == [] and Response.objects.count() == 0
    context.close()


# The demo survey's questions: q-RR q = 0.5 and the bit flip at ln 3 keep the truth with p = 3/4;
# k-RR with epsilon 1 over 4 options with p = e / (e + 3) = 0.475, about 1 in 2.
DEMO_RECEIPT = ["about 3 in 4 reports are.", "about 3 in 4 reports are.", "about 1 in 2 reports are."]


def test_the_receipt_says_per_question_that_a_report_may_or_may_not_be_the_real_answer(live_server, page):
    survey, posts = open_demo(live_server, page)
    answer_every_question(page)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    sent = json.loads(posts[0].post_data)["reports"]
    items = page.locator("#receipt-list li")
    questions = list(survey.ordered_questions())
    assert items.count() == len(questions) == len(DEMO_RECEIPT)
    for index, (question, chance) in enumerate(zip(questions, DEMO_RECEIPT, strict=True)):
        item = items.nth(index)
        assert item.is_visible()
        assert question.text in item.locator(".receipt-question").text_content()
        assert item.locator(".report").text_content() == f"“{question.labels()[sent[str(question.pk)]]}”"
        assert item.locator(".receipt-chance").text_content() == f"This may or may not be your real answer; {chance}"
    assert "Sent:" not in page.locator("#receipt").text_content()


def test_a_unary_receipt_names_the_marked_options_and_the_chances_per_option(live_server, page, survey):
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    answer_every_question(page)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    party = survey.ordered_questions().get(text="Party?")  # OUE, epsilon 1: p = 1/2, q_other = 1/(e + 1)
    bits = json.loads(posts[0].post_data)["reports"][str(party.pk)]
    item = page.locator(f'#receipt-list li[data-question="{party.pk}"]')
    marked = [f"“{label}”" for label, bit in zip(party.labels(), bits, strict=True) if bit]
    assert item.locator(".report").text_content() == (", ".join(marked) or "no option")
    chance = item.locator(".receipt-chance").text_content()
    assert "may or may not be your real answer" in chance
    assert "about 1 in 2 times, every other option about 1 in 4 times" in chance


def test_on_a_phone_the_first_question_starts_on_the_first_screen(live_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    survey, _ = open_demo(live_server, page)
    box = page.locator("fieldset.question").first.bounding_box()
    assert box is not None and box["y"] + 40 < 844  # its legend shows, not just its border
    assert page.locator(".protection details").get_attribute("open") is None  # the long text waits
    context.close()

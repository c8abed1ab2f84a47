"""A multi-select's exclusive option ("None of these") in a real browser: ticking it with the keyboard or
the mouse unticks the others and ticking another unticks it, before anything is randomized; an answer
that still ticks it with others (boxes set without the page seeing it) is refused in words and nothing is
sent; what is sent is randomized bits only: with the same random words, a respondent who ticked two options
and then "None of these" sends exactly what one who ticked only "None of these" sends. axe finds nothing, in
English and Arabic. About 30 s on one core: five real Chromium pages against a live server (marked slow, like
every browser test)."""

import json

import pytest

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Response, Survey
from tests.e2e.conftest import TIMEOUT, axe_violations
from tests.e2e.privacy import CANARY, DETERMINISTIC_CRYPTO, record

pytestmark = pytest.mark.django_db(transaction=True)

NONE = f"None of these {CANARY}"
BOXES = "fieldset[data-kind=multi_select] input[type=checkbox]"


@pytest.fixture
def url(live_server):
    survey = builder.create_survey("exclusive", "Exclusive", [
        QuestionSpec("Which have you used this month?", "multiselect", epsilon=2.0, kind="multi_select",
                     options=[f"Tobacco {CANARY}", f"Alcohol {CANARY}", f"Cannabis {CANARY}", NONE],
                     exclusive=[NONE]),
        QuestionSpec("Ever cheated?", "qrr", q="0.5"),
    ], status=Survey.Status.OPEN, epsilon_budget=5.0)
    return f"{live_server.url}/s/{survey.slug}/"


def ticks(page):
    return page.eval_on_selector_all(BOXES, "boxes => boxes.map(box => box.checked)")


def open_page(browser, url):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.add_init_script(DETERMINISTIC_CRYPTO)
    requests = record(page)
    page.goto(url)
    page.wait_for_selector("#send:enabled")
    return context, page, requests


def send(page, requests):
    page.locator("fieldset[data-kind=yes_no] input[type=radio]").first.check()
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    (post,) = [r for r in requests if r["method"] == "POST"]
    return json.loads(post["body"])


def test_keyboard_and_mouse_ticks_keep_the_exclusive_option_alone_and_axe_finds_nothing(browser, url):
    context, page, _requests = open_page(browser, url)
    boxes = page.locator(BOXES)
    boxes.nth(0).focus()
    page.keyboard.press("Space")  # Tobacco
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # Alcohol
    assert ticks(page) == [True, True, False, False]
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # None of these: the others go
    assert ticks(page) == [False, False, False, True]
    assert page.evaluate("document.activeElement.dataset.option") == "3"
    page.get_by_text(f"Cannabis {CANARY}").click()  # another: None of these goes
    assert ticks(page) == [False, False, True, False]
    page.get_by_text(NONE).click()
    assert ticks(page) == [False, False, False, True]
    page.get_by_text(NONE).click()  # unticked: nothing else changes
    assert ticks(page) == [False, False, False, False]
    described = boxes.nth(3).get_attribute("aria-describedby").split()
    assert page.locator(f"#{described[0]}").text_content() == "(excludes the other options)"
    assert all(page.locator(f"#{name}").count() == 1 for name in described)
    assert page.locator("p.problem:not([hidden])").count() == 0
    assert axe_violations(page) == []
    context.close()


def test_what_is_sent_is_randomized_bits_of_the_answer_with_the_exclusive_option_alone(browser, url):
    context, page, requests = open_page(browser, url)
    for label in ("Tobacco", "Alcohol"):
        page.get_by_text(f"{label} {CANARY}").click()
    page.get_by_text(NONE).click()
    ticked_then_none = send(page, requests)
    context.close()
    Response.objects.all().delete()  # the same random words make the same submission key

    context, page, requests = open_page(browser, url)
    page.get_by_text(NONE).click()
    only_none = send(page, requests)
    context.close()

    assert ticked_then_none == only_none
    assert set(only_none) == {"version", "key", "reports"} and CANARY not in json.dumps(only_none)
    multi, yes_no = only_none["reports"].values()
    assert len(multi) == 4 and set(multi) <= {0, 1} and yes_no in (0, 1)


def test_an_answer_still_ticking_the_exclusive_option_with_others_is_refused_and_nothing_is_sent(browser, url):
    context, page, requests = open_page(browser, url)
    page.get_by_text(NONE).click()
    # Set without a change event (as a restored form could be): the page's check before randomizing catches it.
    page.eval_on_selector_all(BOXES, "boxes => { boxes[0].checked = true; }")
    page.locator("fieldset[data-kind=yes_no] input[type=radio]").first.check()
    page.click("#send")
    problem = page.locator("fieldset[data-kind=multi_select] p.problem")
    problem.wait_for(state="visible")
    assert problem.text_content() == f"“{NONE}” is ticked alone: untick it or the other options."
    assert page.evaluate("document.activeElement.dataset.option") == "0"
    assert [r for r in requests if r["method"] == "POST"] == []
    assert page.locator("#receipt").is_hidden() and Response.objects.count() == 0
    assert axe_violations(page) == []
    context.close()


def test_in_arabic_the_note_and_the_refusal_are_translated_and_axe_finds_nothing(browser, live_server):
    none = "لا شيء مما سبق"
    builder.create_survey("exclusive-ar", "حصري", [
        QuestionSpec("أيّ هذه استخدمت هذا الشهر؟", "multiselect", epsilon=2.0, kind="multi_select",
                     options=["التبغ", "الكحول", none], exclusive=[none]),
    ], status=Survey.Status.OPEN, epsilon_budget=5.0, language="ar")
    context, page, requests = open_page(browser, f"{live_server.url}/s/exclusive-ar/")
    assert page.locator("html").get_attribute("dir") == "rtl"
    page.locator(BOXES).nth(0).focus()
    page.keyboard.press("Space")
    page.locator(BOXES).nth(2).focus()
    page.keyboard.press("Space")
    assert ticks(page) == [False, False, True]
    assert page.locator(".exclusive-note").text_content() == "(تستبعد الخيارات الأخرى)"
    assert axe_violations(page) == []
    page.eval_on_selector_all(BOXES, "boxes => { boxes[1].checked = true; }")
    page.click("#send")
    problem = page.locator("fieldset[data-kind=multi_select] p.problem")
    problem.wait_for(state="visible")
    assert problem.text_content() == f"«{none}» يُحدَّد وحده: ألغِ تحديده أو ألغِ تحديد الخيارات الأخرى."
    assert [r for r in requests if r["method"] == "POST"] == []
    assert axe_violations(page) == []
    context.close()

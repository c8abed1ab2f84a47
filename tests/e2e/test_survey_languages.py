"""The demo survey in Spanish and in Arabic (right to left) in a real browser, behind its consent
text: answered end to end, the receipt in that language, and the request carries no language."""

import json

import pytest
from playwright.sync_api import expect

from surveys.collection import demo
from surveys.collection.demo_languages import TRANSLATIONS
from surveys.collection.models import Response
from tests.e2e.conftest import agree, axe_violations

pytestmark = pytest.mark.django_db(transaction=True)
TEXTS = {spec.language: spec for spec in TRANSLATIONS}


def watch_posts(page):
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    return posts


def answer(page):
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").last.check()


def answer_and_send(page):
    answer(page)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")


def assert_sent_without_language(posts):
    assert len(posts) == 1 and "lang" not in posts[0].url
    body = json.loads(posts[0].post_data)
    assert set(body) == {"version", "key", "reports"}
    assert not any(word in posts[0].post_data for word in ('"es"', '"ar"', "lang"))
    response = Response.objects.get()
    assert {str(r.question_id): r.value for r in response.reports.all()} == body["reports"]


def receipt_questions(page):
    return [item.text_content().strip().split(" ", 1)[1]
            for item in page.locator("#receipt-list .receipt-question").all()]


def test_it_is_answered_in_spanish_chosen_in_the_picker(live_server, page):
    demo.create_demo_survey()
    posts = watch_posts(page)
    page.goto(f"{live_server.url}/s/demo/")
    page.locator("nav.languages a[lang=es]").click()
    page.wait_for_url("**/s/demo/?lang=es")
    expect(page.locator("h1")).to_have_text(TEXTS["es"].title)
    expect(page.locator("#consent .consent-text")).to_contain_text("La participación es voluntaria")
    agree(page)
    answer_and_send(page)
    assert receipt_questions(page) == list(TEXTS["es"].questions)
    assert_sent_without_language(posts)


def test_it_is_answered_in_arabic_from_the_browsers_language_right_to_left(live_server, browser):
    demo.create_demo_survey()
    context = browser.new_context(locale="ar")  # Accept-Language: ar
    page = context.new_page()
    posts = watch_posts(page)
    page.goto(f"{live_server.url}/s/demo/")
    wrapper = page.locator("div.survey-page")
    assert (wrapper.get_attribute("lang"), wrapper.get_attribute("dir")) == ("ar", "rtl")
    expect(page.locator("h1")).to_have_text(TEXTS["ar"].title)
    assert axe_violations(page) == []  # the consent state
    agree(page)
    labels = [label.text_content().strip() for label in page.locator("fieldset.question").nth(2).locator("label").all()]
    assert labels == list(TEXTS["ar"].options[3])
    answer_and_send(page)
    assert receipt_questions(page) == list(TEXTS["ar"].questions)
    assert_sent_without_language(posts)
    context.close()


def test_nothing_can_be_answered_or_sent_before_agreeing_and_agreeing_works_by_keyboard(live_server, page):
    demo.create_demo_survey()
    posts = watch_posts(page)
    page.goto(f"{live_server.url}/s/demo/")
    expect(page.locator("#agree")).to_be_enabled()
    assert page.locator("#send").is_hidden() and page.locator("fieldset.question input:visible").count() == 0
    page.locator("#send").evaluate("button => button.click()")  # pressed anyway, by script
    page.wait_for_timeout(300)
    assert posts == [] and Response.objects.count() == 0
    for _ in range(30):  # Tab through the page to the button, as a keyboard user would
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "agree":
            break
    page.keyboard.press("Enter")
    expect(page.locator("#survey")).to_be_visible()
    assert page.evaluate("document.activeElement.closest('fieldset') !== null")  # on the first question
    assert page.locator("#agree").is_hidden() and page.locator("#agreed").is_visible()


def test_kept_reports_are_resent_without_asking_for_consent_again(live_server, page):
    demo.create_demo_survey()
    page.goto(f"{live_server.url}/s/demo/")
    agree(page)
    page.route("**/responses/", lambda route: route.abort())
    answer(page)
    page.click("#send")
    expect(page.locator("#status")).to_contain_text("Could not reach the server")
    page.unroute("**/responses/")
    page.reload()
    page.locator("#unsent").wait_for()
    assert page.locator("#consent").is_hidden() and page.locator("#survey").is_hidden()
    page.click("#resend")
    page.wait_for_selector("#receipt:not([hidden])")
    assert Response.objects.count() == 1

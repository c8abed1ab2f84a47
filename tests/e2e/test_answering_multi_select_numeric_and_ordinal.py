"""A respondent answers multi-select, numeric and ordinal questions in a real browser: ticks with their limit, a number
checked on its grid before anything is randomized, levels; only randomized reports leave, and the receipt says what was
sent in words; the page fits a phone."""

import json

import pytest
from playwright.sync_api import expect

from surveys.collection import plan
from surveys.collection.models import Response
from tests.e2e.answering import COUNT_RANDOM_WORDS, answer

pytestmark = pytest.mark.django_db(transaction=True)


def open_page(live_server, page, survey):
    posts = []
    page.add_init_script(COUNT_RANDOM_WORDS)
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.wait_for_selector("#send:enabled")
    return posts


def fieldset(page, survey, order):
    return page.locator(f"fieldset[data-question='{plan.of(survey).questions[order - 1].id}']")


def random_calls(page):
    return page.evaluate("globalThis.__randomCalls")


def test_each_kind_is_answered_and_the_receipt_says_what_was_sent(live_server, page, kinds_survey):
    posts = open_page(live_server, page, kinds_survey)
    answer(page, [[0, 2], "42", "7.5", "30", 3])
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")

    current = plan.of(kinds_survey)
    (post,) = posts
    body = json.loads(post.post_data)
    reports = [body["reports"][str(q.id)] for q in current]
    response = Response.objects.get()
    stored = {r.question_id: r.value for r in response.reports.all()}
    assert [q.mechanism.encode(report) for q, report in zip(current, reports, strict=True)] == [
        stored[q.id] for q in current]
    assert len(reports[0]) == 4 and reports[1] in (0, 1) and reports[3] in range(4) and reports[4] in range(4)

    items = page.locator("#receipt-list li .report")
    labels = ["Tobacco", "Alcohol", "Cannabis", "Prefer not to say"]
    ticked = [f"“{label}”" for label, bit in zip(labels, reports[0], strict=True) if bit]
    assert items.nth(0).inner_text() == (", ".join(ticked) or "no box")
    assert items.nth(1).inner_text() == f"{reports[1]} (leaning toward {'100' if reports[1] else '0'})"
    assert float(items.nth(2).inner_text()) == reports[2] * 0.5  # lo + r * step
    assert items.nth(3).inner_text() == f"“{current.questions[3].options[reports[3]]}”"
    assert json.loads(page.locator("#receipt-body").text_content()) == body
    # The truth is forgotten: no box ticked, no number left, no level chosen.
    assert page.locator("input:checked").count() == 0
    assert page.locator("input[type=number]").evaluate_all("inputs => inputs.map(i => i.value)") == ["", "", ""]


@pytest.mark.parametrize("typed, words", [
    ("7.25", "Please enter a number from 0 to 10 in steps of 0.5, such as 7 or 7.5."),
    ("10.5", "Please enter a number from 0 to 10."),
    ("-1", "Please enter a number from 0 to 10."),
    ("", "Please enter a number."),
])
def test_a_number_off_its_grid_is_refused_in_words_before_anything_is_randomized(live_server, page, kinds_survey,
                                                                                 typed, words):
    posts = open_page(live_server, page, kinds_survey)
    before = random_calls(page)
    answer(page, [[0], "42", typed, "30", 1])
    page.click("#send")
    drinks = fieldset(page, kinds_survey, 3)
    problem = drinks.locator(".problem")
    expect(problem).to_have_text(words)
    number = drinks.locator("input[type=number]")
    assert number.get_attribute("aria-invalid") == "true"
    assert problem.get_attribute("id") in number.get_attribute("aria-describedby").split()
    assert number.evaluate("input => input === document.activeElement")
    assert posts == [] and random_calls(page) == before  # nothing randomized, nothing sent
    number.fill("7.5")
    expect(problem).to_be_hidden()
    assert number.get_attribute("aria-invalid") == "false"
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert len(posts) == 1 and Response.objects.count() == 1


def test_an_off_grid_number_is_said_as_soon_as_it_is_left(live_server, page, kinds_survey):
    open_page(live_server, page, kinds_survey)
    number = fieldset(page, kinds_survey, 2).locator("input[type=number]")
    number.fill("3.5")
    number.press("Tab")
    expect(fieldset(page, kinds_survey, 2).locator(".problem")).to_have_text(
        "Please enter a number from 0 to 100 in steps of 1, such as 3 or 4.")


def test_more_ticks_than_allowed_are_refused_before_anything_is_randomized(live_server, page, kinds_survey):
    posts = open_page(live_server, page, kinds_survey)
    before = random_calls(page)
    multi = fieldset(page, kinds_survey, 1)
    boxes = multi.locator("input[type=checkbox]")
    for j in (0, 1, 2):
        boxes.nth(j).check()
    expect(multi.locator(".problem")).to_have_text("Please tick at most 2 boxes.")
    answer(page, [[], "1", "1", "1", 0])
    page.click("#send")
    assert posts == [] and random_calls(page) == before
    boxes.nth(2).uncheck()
    expect(multi.locator(".problem")).to_be_hidden()
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert len(posts) == 1


def test_no_box_ticked_is_an_answer_and_is_randomized_like_any(live_server, page, kinds_survey):
    posts = open_page(live_server, page, kinds_survey)
    answer(page, [[], "0", "0", "0", 0])
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert len(json.loads(posts[0].post_data)["reports"][str(plan.of(kinds_survey).questions[0].id)]) == 4


def test_the_page_fits_a_phone_and_asks_for_the_right_keyboard(live_server, browser, kinds_survey):
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{kinds_survey.slug}/")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    modes = page.locator("input[type=number]").evaluate_all("inputs => inputs.map(i => i.inputMode)")
    assert modes == ["numeric", "decimal", "numeric"]
    for box in page.locator("label.option").all():  # touch targets at least 44 px high
        assert box.bounding_box()["height"] >= 44
    context.close()

"""Without JavaScript nothing true can leave the page: the respondent page, loaded with scripts
off, is answered (options chosen, boxes ticked, numbers typed), then everything that could submit
it is tried (Enter in each field, every enabled button, every form's own submission); no request
after the page's own load carries an answer input's name or an answer given."""

import pytest

from tests.e2e.answering import every_kind_survey
from tests.e2e.conftest import TIMEOUT

pytestmark = pytest.mark.django_db(transaction=True)

# Every form submitted as a browser would (its submit event, its action and method); none expected.
SUBMIT_EVERY_FORM = "() => [...document.forms].map((form) => { form.requestSubmit(); return form.action; })"


def test_no_request_carries_an_answer_when_the_page_has_no_javascript(live_server, browser):
    every_kind_survey()
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{live_server.url}/s/every/")
    assert page.locator("noscript").count() == 1
    requests = []
    page.on("request", lambda request: requests.append((request.method, request.url, request.post_data or "")))

    names = page.evaluate("[...document.querySelectorAll('fieldset.question input')].map((i) => i.name)"
                          ".filter(Boolean)")
    assert names, "the radios are named for their group"
    fieldsets = page.locator("fieldset.question")
    fieldsets.nth(1).locator("label.option").nth(2).click()  # "Often"
    fieldsets.nth(2).locator("label.option").nth(1).click()  # "Alcohol"
    fieldsets.nth(3).locator("input").fill("73")
    fieldsets.nth(4).locator("input").fill("58")
    fieldsets.nth(6).locator("label.option").nth(2).click()  # "South", the direct question
    truths = ["Often", "Alcohol", "73", "58", "South", *names]
    for field in page.locator("input[type=number]").all():
        field.press("Enter")
    for button in page.locator("button:enabled, input[type=submit]:enabled, input[type=image]:enabled").all():
        if button.is_visible():
            button.click()
    page.evaluate(SUBMIT_EVERY_FORM)
    page.wait_for_timeout(500)
    leaked = [(method, url) for method, url, body in requests for truth in truths if truth in url + body]
    assert leaked == []
    assert page.url == f"{live_server.url}/s/every/"  # never navigated away
    context.close()

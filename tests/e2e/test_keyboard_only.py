"""A respondent who uses only the keyboard answers every question (options chosen with Space or
the arrow keys, ticks, numbers typed and stepped with the arrow keys), is taken to the first problem
when one is left, sends with Enter and is taken to the receipt; one response is stored. Every stop of
Tab shows where the focus is, and Tab goes through the page in the order it is laid out. No mouse, no
click(), no check()."""

import pytest

from surveys.collection import demo
from surveys.collection.models import Report, Response
from tests.e2e.layout import focused, tabbable

pytestmark = pytest.mark.django_db(transaction=True)


def after(earlier, later, rtl=False) -> bool:
    """`later` comes after `earlier` in reading order: on a lower line, or on the same line further
    along it (right in a left-to-right page, left in a right-to-left one). 2 px of slack."""
    a, b = earlier["box"], later["box"]
    if b["top"] >= a["bottom"] - 2:
        return True
    same_line = b["top"] < a["bottom"] and a["top"] < b["bottom"]
    return same_line and (b["right"] <= a["left"] + 2 if rtl else b["left"] >= a["right"] - 2)


class Keyboard:
    """Tab (or Shift+Tab) to a control, one press at a time, keeping every stop."""

    def __init__(self, page):
        self.page, self.stops = page, []
        self.rtl = page.evaluate("getComputedStyle(document.documentElement).direction") == "rtl"

    def tab_to(self, key, backwards=False, most=60):
        for _ in range(most):
            self.page.keyboard.press("Shift+Tab" if backwards else "Tab")
            now = focused(self.page)
            self.stops.append(now)
            if now["key"] == key:
                return now
        raise AssertionError(f"{key} not reached in {most} presses: {[stop['key'] for stop in self.stops[-most:]]}")

    def press(self, *keys):
        """Press keys in turn; a key that moves the focus (an arrow between options) adds a stop."""
        for key in keys:
            self.page.keyboard.press(key)
            now = focused(self.page)
            if self.stops and now["key"] != self.stops[-1]["key"]:
                self.stops.append(now)


def question_ids(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('fieldset.question')].map((f) => f.dataset.question)")


def assert_every_stop_was_shown_in_order(keyboard, expected_keys):
    """The forward stops are the page's controls in document order, each with a focus indicator,
    each after the last on the screen."""
    keys = [stop["key"] for stop in keyboard.stops]
    assert keys == expected_keys
    assert [stop["name"] for stop in keyboard.stops if not stop["indicator"]] == []
    for earlier, later in zip(keyboard.stops, keyboard.stops[1:], strict=False):
        assert after(earlier, later, keyboard.rtl), (earlier, later)


def send_and_land_on_the_receipt(page, keyboard, questions):
    keyboard.tab_to("send")
    keyboard.press("Enter")
    page.wait_for_selector("#receipt:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "receipt"
    assert Response.objects.count() == 1
    assert Report.objects.count() == len(questions)


def test_the_demo_survey_is_answered_and_sent_with_the_keyboard_alone(live_server, page_in_language):
    demo.create_demo_survey()
    page = page_in_language()
    page.goto(f"{live_server.url}/s/demo/")
    page.wait_for_selector("#agree:enabled")
    Keyboard(page).tab_to("agree")  # the consent text comes first; agreeing takes focus to the first option
    page.keyboard.press("Enter")
    page.wait_for_selector("#send:enabled")
    first, second, third = questions = question_ids(page)
    assert focused(page)["key"] == f"{first}/0"
    expected = tabbable(page)
    expected = expected[expected.index(f"{first}/0") + 1:]
    keyboard = Keyboard(page)

    # One pass, top to bottom: the first two questions answered, the third left, then Enter on send.
    keyboard.tab_to(f"{first}/1")
    keyboard.press("Space")
    keyboard.tab_to(f"{second}/0")
    keyboard.press("Space")
    keyboard.tab_to("send")
    assert_every_stop_was_shown_in_order(keyboard, expected)
    keyboard.press("Enter")
    assert page.locator(".problem:visible").count() == 1
    assert focused(page)["key"] == f"{third}/0"  # taken to the question left unanswered
    assert Response.objects.count() == 0

    keyboard.tab_to(f"{third}/3")
    keyboard.tab_to(f"{third}/2", backwards=True)
    keyboard.press("Space")
    assert page.locator(".problem:visible").count() == 0
    checked = page.evaluate("[...document.querySelectorAll('input:checked')].map((i) => "
                            "`${i.closest('fieldset').dataset.question}/${i.dataset.option}`)")
    assert checked == [f"{first}/1", f"{second}/0", f"{third}/2"]
    send_and_land_on_the_receipt(page, keyboard, questions)


def test_the_question_kinds_demo_is_answered_and_sent_with_the_keyboard_alone(live_server, page_in_language):
    survey, _ = demo.create_types_survey()
    page = page_in_language()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.wait_for_selector("#send:enabled")
    ticks, hours, drinks, age, stress = questions = question_ids(page)
    expected = tabbable(page)
    keyboard = Keyboard(page)

    keyboard.tab_to(f"{ticks}/0")
    keyboard.press("Space")
    keyboard.tab_to(f"{ticks}/1")
    keyboard.press("Space")
    keyboard.tab_to(f"answer-{hours}")
    page.keyboard.type("12")
    keyboard.tab_to(f"answer-{drinks}")
    page.keyboard.type("3")
    keyboard.press("ArrowUp", "ArrowUp", "ArrowDown")  # stepped along the grid: 4
    keyboard.tab_to(f"answer-{age}")
    page.keyboard.type("40")
    keyboard.tab_to(f"{stress}/0")
    keyboard.press("ArrowDown", "ArrowDown", "ArrowDown")  # an arrow moves to the next level and chooses it
    keyboard.tab_to("send")
    assert_every_stop_was_shown_in_order(keyboard, expected)

    answers = page.evaluate("""[...document.querySelectorAll('fieldset.question')].map((f) =>
      [...f.querySelectorAll('input')].map((i) => i.type === 'number' ? i.value : (i.checked ? 1 : 0)))""")
    assert answers == [[1, 1, 0, 0, 0], ["12"], ["4"], ["40"], [0, 0, 0, 1, 0, 0]]
    send_and_land_on_the_receipt(page, keyboard, questions)


def test_a_number_off_the_grid_is_said_when_left_and_focused_again_on_send(live_server, page_in_language):
    survey, _ = demo.create_types_survey()
    page = page_in_language()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.wait_for_selector("#send:enabled")
    ticks, hours, drinks, age, stress = question_ids(page)
    keyboard = Keyboard(page)
    keyboard.tab_to(f"answer-{hours}")
    page.keyboard.type("12.5")
    keyboard.press("Tab")
    assert page.locator(f"#problem-{hours}").is_visible()
    assert page.get_attribute(f"#answer-{hours}", "aria-invalid") == "true"
    keyboard.tab_to("send")
    keyboard.press("Enter")
    assert focused(page)["key"] == f"answer-{hours}"  # the first problem: focus goes back to it
    assert Response.objects.count() == 0

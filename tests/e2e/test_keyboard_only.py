"""A respondent who uses only the keyboard answers every question (options chosen with Space or
the arrow keys, ticks, numbers typed and stepped with the arrow keys), is told of a number off the
grid as soon as it is left, is taken to the first problem when one is left, sends with Enter and is
taken to the receipt; one response is stored. A question's options are one Tab stop, the arrow keys
move among them and never out of the question. Every stop of Tab shows where the focus is, and Tab
goes through the page in the order it is laid out. A survey of every kind is answered with Tab, the
arrows and Space alone, in English and Arabic, with no axe-core violation. No mouse, no click(), no
check()."""

import pytest

from surveys.collection import demo
from surveys.collection.models import Report, Response
from tests.e2e.answering import every_kind_survey
from tests.e2e.conftest import axe_violations
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
    """Tab (or Shift+Tab) to a control, one press at a time, keeping every stop (and every move of
    the focus by another key, such as an arrow between options)."""

    def __init__(self, page):
        self.page, self.stops, self.moves = page, [], []
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
        """Press keys in turn; a key that moves the focus (an arrow between options) adds a move."""
        for key in keys:
            before = focused(self.page)["key"]
            self.page.keyboard.press(key)
            now = focused(self.page)
            if now["key"] != before:
                self.moves.append(now)


def question_ids(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('fieldset.question')].map((f) => f.dataset.question)")


def assert_every_stop_was_shown_in_order(keyboard, expected_keys):
    """The forward stops are the page's controls in document order, each with a focus indicator,
    each after the last on the screen."""
    keys = [stop["key"] for stop in keyboard.stops]
    assert keys == expected_keys
    assert [stop["name"] for stop in keyboard.stops + keyboard.moves if not stop["indicator"]] == []
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
    keyboard.press("ArrowDown")  # the next option, chosen
    assert [stop["key"] for stop in keyboard.moves] == [f"{first}/1"]
    keyboard.tab_to(f"{second}/0")
    keyboard.press("Space")
    keyboard.tab_to("send")
    assert_every_stop_was_shown_in_order(keyboard, expected)
    keyboard.press("Enter")
    assert page.locator(".problem:visible").count() == 1
    assert focused(page)["key"] == f"{third}/0"  # taken to the question left unanswered
    assert Response.objects.count() == 0

    keyboard.press("ArrowUp", "ArrowUp")  # from the first option up: round to the last, then the one before
    assert page.locator(".problem:visible").count() == 0
    checked = page.evaluate("[...document.querySelectorAll('input:checked')].map((i) => "
                            "`${i.closest('fieldset').dataset.question}/${i.dataset.option}`)")
    assert checked == [f"{first}/1", f"{second}/0", f"{third}/2"]
    send_and_land_on_the_receipt(page, keyboard, questions)


def test_the_question_kinds_demo_is_answered_and_sent_with_the_keyboard_alone(live_server, page_in_language):
    """A number off the grid is said when it is left, and Enter on send focuses it again; typed again,
    the survey is sent."""
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
    page.keyboard.type("12.5")
    keyboard.tab_to(f"answer-{drinks}")  # the number off the grid, left
    assert page.locator(f"#problem-{hours}").is_visible()
    assert page.get_attribute(f"#answer-{hours}", "aria-invalid") == "true"
    page.keyboard.type("3")
    keyboard.press("ArrowUp", "ArrowUp", "ArrowDown")  # stepped along the grid: 4
    keyboard.tab_to(f"answer-{age}")
    page.keyboard.type("40")
    keyboard.tab_to(f"{stress}/0")
    keyboard.press("ArrowDown", "ArrowDown", "ArrowDown")  # an arrow moves to the next level and chooses it
    assert [move["key"] for move in keyboard.moves] == [f"{stress}/1", f"{stress}/2", f"{stress}/3"]
    keyboard.tab_to("send")
    assert_every_stop_was_shown_in_order(keyboard, expected)
    keyboard.press("Enter")
    assert focused(page)["key"] == f"answer-{hours}"  # the first problem: focus goes back to it
    assert Response.objects.count() == 0

    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type("12")
    answers = page.evaluate("""[...document.querySelectorAll('fieldset.question')].map((f) =>
      [...f.querySelectorAll('input')].map((i) => i.type === 'number' ? i.value : (i.checked ? 1 : 0)))""")
    assert answers == [[1, 1, 0, 0, 0], ["12"], ["4"], ["40"], [0, 0, 0, 1, 0, 0]]
    send_and_land_on_the_receipt(page, keyboard, questions)


def checked(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('input:checked')].map((i) => "
                         "`${i.closest('fieldset').dataset.question}/${i.dataset.option}`)")


def test_a_questions_options_are_one_tab_stop_and_the_arrows_stay_inside_it(live_server, page):
    every_kind_survey()
    page.goto(f"{live_server.url}/s/every/")
    page.wait_for_selector("#send:enabled")
    yes_no, single, *_ = question_ids(page)
    keyboard = Keyboard(page)
    keyboard.tab_to(f"{yes_no}/0")
    keyboard.press("Tab")  # out of the question, into the next one: not to its second option
    assert focused(page)["key"] == f"{single}/0" and checked(page) == []
    keyboard.press("ArrowDown", "ArrowDown", "ArrowDown")  # three options: round to the first
    assert [move["key"] for move in keyboard.moves] == [f"{single}/{i}" for i in (0, 1, 2, 0)]
    keyboard.press("ArrowUp", "Shift+Tab", "ArrowDown", "ArrowDown", "ArrowDown")  # yes/no: round and round
    assert checked(page) == [f"{yes_no}/1", f"{single}/2"]  # one option per question, no other question ticked
    keyboard.press("Shift+Tab", "Tab")
    assert focused(page)["key"] == f"{yes_no}/1"  # a question is entered at its chosen option


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_survey_of_every_kind_is_answered_with_tab_the_arrows_and_space_alone(live_server, page_in_locale,
                                                                                 language):
    survey = every_kind_survey(language)
    page = page_in_locale(language, viewport={"width": 390, "height": 844})
    page.goto(f"{live_server.url}/s/every/")
    page.wait_for_selector("#send:enabled")
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == [
        language, "rtl" if language == "ar" else "ltr"]
    assert axe_violations(page) == []
    yes_no, single, multi, hours, age, ordinal, direct = questions = question_ids(page)
    expected = tabbable(page)
    keyboard = Keyboard(page)

    keyboard.tab_to(f"{yes_no}/0")
    keyboard.press("Space", "ArrowDown")  # "No" chosen, then "Yes"
    keyboard.tab_to(f"{single}/0")
    keyboard.press("ArrowDown", "ArrowDown")
    keyboard.tab_to(f"{multi}/0")
    keyboard.press("Space")
    keyboard.tab_to(f"{multi}/2")
    keyboard.press("Space")
    keyboard.tab_to(f"answer-{hours}")
    keyboard.press(*["ArrowUp"] * 3)  # stepped up from empty: 1, 2, 3
    keyboard.tab_to(f"answer-{age}")
    keyboard.press(*["ArrowUp"] * 20)
    keyboard.tab_to(f"{ordinal}/0")
    keyboard.press("ArrowDown")
    keyboard.tab_to(f"{direct}/0")
    keyboard.press("ArrowDown")
    keyboard.tab_to("send")
    assert_every_stop_was_shown_in_order(keyboard, expected)
    answers = page.evaluate("""[...document.querySelectorAll('fieldset.question')].map((f) =>
      [...f.querySelectorAll('input')].map((i) => i.type === 'number' ? i.value : (i.checked ? 1 : 0)))""")
    assert answers == [[0, 1], [0, 0, 1], [1, 0, 1, 0], ["3"], ["20"], [0, 1, 0, 0], [0, 1, 0]]

    keyboard.press("Space")
    page.wait_for_selector("#receipt:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "receipt"
    assert Report.objects.filter(response__survey=survey).count() == len(questions)
    assert Report.objects.get(question_id=int(direct)).value == 1  # the direct answer, as given
    assert axe_violations(page) == []

"""The respondent page on a 390 px phone, in English and Arabic: a tap right after a number is
refused as it is left lands where it was aimed (the problem moves nothing below it); after sending,
the receipt's top is on the screen; "ε = 3,198" never splits across lines; a question's title that
wraps stays inside its card."""

import pytest

from surveys.collection.models import Response
from tests.e2e.answering import answer, every_kind_survey

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
LANGUAGES = ["en", "ar"]


@pytest.fixture(params=LANGUAGES)
def phone(request, live_server, page_in_locale):
    """The survey of every kind in the language under test, open on a phone."""
    every_kind_survey(request.param)
    page = page_in_locale(request.param, **PHONE)
    page.goto(f"{live_server.url}/s/every/")
    page.wait_for_selector("#send:enabled")
    return page


def box(page, selector):
    return page.evaluate("(s) => { const b = document.querySelector(s).getBoundingClientRect(); "
                         "return {top: b.top, left: b.left, width: b.width, height: b.height}; }", selector)


ANSWERS = [1, 2, [0], "40", "30", 1, 2]  # yes, often, tobacco, 40 hours, 30 years old, rarely, south
CHECKED = "[...document.querySelectorAll('input:checked')].map((i) => i.closest('fieldset').dataset.kind)"
AGE = "fieldset.question:nth-of-type(5) input[type=number]"
NEXT_OPTION = "fieldset.question:nth-of-type(6) label.option:nth-of-type(2)"


@pytest.mark.parametrize("where", ["start", "center"])  # at the top (the browser's own scroll anchoring) or mid-screen
def test_a_tap_right_after_a_number_out_of_range_lands_where_it_was_aimed(phone, where):
    page = phone
    page.focus(AGE)
    page.keyboard.type("150")  # above 120
    page.evaluate("([s, where]) => document.querySelector(s).scrollIntoView({block: where})", [AGE, where])
    aimed = box(page, NEXT_OPTION)
    assert 0 < aimed["top"] and aimed["top"] + aimed["height"] < 844
    page.touchscreen.tap(aimed["left"] + aimed["width"] / 2, aimed["top"] + aimed["height"] / 2)
    assert page.locator("fieldset.question:nth-of-type(5) .problem").is_visible()  # said as the number was left
    assert page.evaluate(CHECKED) == ["ordinal"]  # the tap chose the option it was aimed at
    after = box(page, NEXT_OPTION)
    assert abs(after["top"] - aimed["top"]) < 1


def test_leaving_a_number_out_of_range_with_tab_keeps_the_next_control_in_place(phone):
    page = phone
    page.focus(AGE)
    page.keyboard.type("150")
    page.evaluate("(s) => document.querySelector(s).scrollIntoView({block: 'center'})", AGE)
    aimed = box(page, NEXT_OPTION)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('fieldset').dataset.kind") == "ordinal"
    assert abs(box(page, NEXT_OPTION)["top"] - aimed["top"]) < 1


def test_after_sending_the_receipts_top_is_on_the_screen(phone):
    page = phone
    answer(page, ANSWERS)
    page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")  # the send button is last
    page.locator("#send").tap()
    page.wait_for_selector("#receipt:not([hidden])")
    assert Response.objects.count() == 1
    heading = box(page, "#receipt-heading")
    assert 0 <= heading["top"] and heading["top"] + heading["height"] <= 844
    assert page.evaluate("document.activeElement.id") == "receipt"


# Every "ε = <figure>" in the page's text, and the lines it is laid out on (more than one: split).
SPLIT_FIGURES = r"""() => {
  const split = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement.checkVisibility()) continue;
    for (const found of node.textContent.matchAll(/ε\s*=\s*[0-9][0-9.,٫]*/g)) {
      const range = document.createRange();
      range.setStart(node, found.index);
      range.setEnd(node, found.index + found[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) split.push(found[0]);
    }
  }
  return split;
}"""
FIGURES = "() => [...document.body.innerText.matchAll(/ε\\s*=\\s*[0-9]/g)].length"


def test_no_privacy_figure_splits_across_lines_at_any_phone_width(phone):
    page = phone
    page.locator("details summary").first.tap()  # the paragraph with the survey's total
    widths = range(300, 432, 3)

    def splits():
        found = {}
        for width in widths:
            page.set_viewport_size({"width": width, "height": 844})
            split = page.evaluate(SPLIT_FIGURES)
            if split:
                found[width] = split
        return found

    assert page.evaluate(FIGURES) == 2  # the survey's total, the browser's own figure
    assert splits() == {}
    page.set_viewport_size(PHONE["viewport"])
    answer(page, ANSWERS)
    page.locator("#send").tap()
    page.wait_for_selector("#receipt:not([hidden])")
    assert page.evaluate(FIGURES) == 2  # the survey's total, the receipt's figure
    assert splits() == {}


# Each question's card: how many lines its title takes, whether the card's top border is drawn
# through the title, and whether the title is within the card's sides. HTML draws a fieldset's top
# border through the middle of its rendered legend (the first legend, neither floated nor positioned).
TITLES = """() => [...document.querySelectorAll("fieldset.question")].map((card) => {
  const legend = card.querySelector(":scope > legend");
  const card_style = getComputedStyle(card), style = getComputedStyle(legend);
  const outer = card.getBoundingClientRect(), title = legend.getBoundingClientRect();
  const width = parseFloat(card_style.borderTopWidth);
  const rendered = style.float === "none" && !["absolute", "fixed"].includes(style.position);
  const border = outer.top + (rendered ? Math.max(0, (title.height - width) / 2) : 0);
  return {
    lines: Math.round(title.height / parseFloat(style.lineHeight)),
    through: title.top < border + width && title.bottom > border,
    inside: title.left >= outer.left + parseFloat(card_style.borderLeftWidth)
      && title.right <= outer.right - parseFloat(card_style.borderRightWidth),
  };
})"""


def test_a_question_title_that_wraps_stays_inside_its_card(phone):
    titles = phone.evaluate(TITLES)
    assert titles[0]["lines"] >= 2  # the long first question wraps
    assert [title for title in titles if title["through"] or not title["inside"]] == []

"""The respondent page's language switcher as a person sees it, in Chromium: a row of outlined links (no
bullets), each language named in itself and capitalised as a label, the language shown filled, every link a
target of at least 24 px, wrapping on a phone without a horizontal scroll, mirrored in Arabic, and no axe-core
violation (WCAG 2.2 AA). It was a bare bulleted list."""

import pytest

from surveys.collection import demo
from tests.e2e.conftest import axe_violations

pytestmark = pytest.mark.django_db(transaction=True)
ACCENT, WHITE = "rgb(31, 95, 174)", "rgb(255, 255, 255)"


def switcher(page) -> list[dict]:
    """Each link of the switcher: its text, whether it is current, its box and the styles that make it a switch."""
    return page.evaluate("""() => [...document.querySelectorAll("nav.languages a")].map((a) => {
        const box = a.getBoundingClientRect(), style = getComputedStyle(a);
        return {text: a.textContent, current: a.getAttribute("aria-current"), left: box.left, right: box.right,
                top: Math.round(box.top), height: box.height, width: box.width, background: style.backgroundColor,
                color: style.color, border: style.borderTopWidth + " " + style.borderTopStyle,
                bullet: getComputedStyle(a.closest("li")).display + " "
                        + getComputedStyle(a.closest("ul")).listStyleType};
      })""")


@pytest.mark.parametrize("locale,names,shown", [
    ("en", ["English", "Español", "Français", "العربيّة"], "English"),
    ("es", ["English", "Español", "Français", "العربيّة"], "Español"),
])
def test_the_switcher_is_a_row_of_outlined_links_with_the_shown_language_filled(live_server, page_in_locale, locale,
                                                                                 names, shown, tmp_path):
    demo.create_demo_survey()
    page = page_in_locale(locale, viewport={"width": 900, "height": 900})
    page.goto(f"{live_server.url}/s/demo/")
    links = switcher(page)
    page.locator("nav.languages").screenshot(path=str(tmp_path / f"switcher-{locale}.png"))
    assert sorted(link["text"] for link in links) == sorted(names)
    assert len({link["top"] for link in links}) == 1  # one row
    assert all(link["bullet"].endswith(" none") for link in links)  # no bullets
    assert all(link["border"] == "1px solid" and link["height"] >= 24 and link["width"] >= 24 for link in links)
    assert [(link["text"], link["background"], link["color"]) for link in links if link["current"] == "page"] == [
        (shown, ACCENT, WHITE)]
    assert {(link["background"], link["color"]) for link in links if link["current"] is None} == {(WHITE, ACCENT)}
    assert axe_violations(page) == []
    page.keyboard.press("Tab")  # the skip link, then the switcher's first link
    page.keyboard.press("Tab")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"


def test_on_a_phone_the_switcher_wraps_without_a_horizontal_scroll_and_mirrors_in_arabic(live_server, page_in_locale):
    demo.create_demo_survey()
    page = page_in_locale("ar", viewport={"width": 320, "height": 700})
    page.goto(f"{live_server.url}/s/demo/?lang=ar")
    links = switcher(page)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert all(0 <= link["left"] and link["right"] <= 320 for link in links)
    first_row = [link for link in links if link["top"] == links[0]["top"]]
    assert [link["right"] for link in first_row] == sorted((link["right"] for link in first_row), reverse=True)
    assert axe_violations(page) == []

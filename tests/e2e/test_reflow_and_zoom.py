"""The respondent page, the sign-in page and the researcher's pages on a 320 px wide screen, at 200%
browser zoom, and with only the text enlarged to 200%, in every language under test: nothing scrolls
sideways, every control is on screen and at least 24 by 24 px (or clear of its neighbours), no text is
cut off or overlaps other text (a data table may scroll inside its own box), before sending, with the
problems shown and on the receipt; and answering and sending work (Playwright's actions check that
what they press is visible and not covered).

Each page is loaded once and laid out again in place for each layout (reflow needs no reload): a page
load and a fresh browser context cost more than a resize, so loading each page per layout made this module
cost about two and a half times as much. The controls a person presses next are checked in every layout (a trial click:
Playwright's actionability checks without the action) and pressed in the last. About 80 CPU-s on one core,
Chromium's included: twelve tests of up to six states each, every state checked in three layouts."""

import pytest

from surveys.collection import builder, demo, plan
from surveys.collection.models import Response
from tests.e2e.conftest import agree
from tests.e2e.layout import layout_problems
from tests.e2e.test_dashboard_early_results import small_survey
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)

# Browser zoom at 200% of a 1280 by 800 window lays the page out in 640 by 400 CSS px. It also draws them
# at two device pixels per CSS px, which a context fixes when it is made; measured on every page and state
# here, in English and Arabic, that moves a few lines' heights by at most 1.3 px (font metrics rounded to
# device pixels) and changes no check, so all layouts share one page at one device pixel per CSS px.
# Enlarging only the text sets the root font size: the CSS sizes in rem.
VIEWPORTS = {
    "320 px": {"width": 320, "height": 640},
    "zoom 200%": {"width": 640, "height": 400},
    "text 200%": {"width": 1280, "height": 800},
}
TEXT_SIZES = {"text 200%": "200%"}
# CSSOM, not a <style> element: the page's CSP (style-src 'self') refuses inline style sheets.
SET_TEXT_SIZE = "(size) => { document.documentElement.style.fontSize = size; }"
BODY_TEXT_SIZE = "parseFloat(getComputedStyle(document.body).fontSize)"


class Screen:
    """One page, laid out in each layout in turn, in place. The order turns round at each state, so a state
    starts in the layout the one before ended in (one resize fewer) and the real presses, made in the last
    layout, alternate between the first and the last of VIEWPORTS."""

    def __init__(self, page):
        self.page, self.order, self.layout = page, list(VIEWPORTS), None

    def lay_out(self, layout):
        if layout == self.layout:
            return
        self.page.set_viewport_size(VIEWPORTS[layout])
        if self.layout in TEXT_SIZES:
            self.page.evaluate(SET_TEXT_SIZE, "")
        if layout in TEXT_SIZES:
            before = self.page.evaluate(BODY_TEXT_SIZE)
            self.page.evaluate(SET_TEXT_SIZE, TEXT_SIZES[layout])
            enlarged = before * float(TEXT_SIZES[layout].rstrip("%")) / 100
            assert self.page.evaluate(BODY_TEXT_SIZE) == pytest.approx(enlarged)
        self.layout = layout

    def in_every_layout(self, state, scrolls=None, presses=(), check=True, shown=()):
        """The page as it is now, in each layout: no layout problem (unless `check` is off), each of `shown`
        visible, and each of `presses` (locators) actionable: visible, stable, enabled, not covered; the
        last layout's presses are left to the caller, who makes them."""
        problems = {}  # every layout's, so a failure says each layout it happens in
        for layout in self.order:
            self.lay_out(layout)
            for locator in shown:
                assert locator.is_visible(), f"{state}, {layout}"
            if check and (found := layout_problems(self.page, scrolls)):
                problems[layout] = found
            if layout != self.order[-1] and not problems:
                for press in presses:
                    press.click(trial=True)
        self.order.reverse()
        assert problems == {}, state


def open_screen(page_in_language, url):
    page = page_in_language()
    page.goto(url)
    return Screen(page), page


def answers(page):
    """What a person taps to answer every question: the first option, or the first tick, or the number."""
    taps = []
    for fieldset in page.locator("fieldset.question").all():
        kind = fieldset.get_attribute("data-kind")
        if kind == "multi_select":
            taps.append(fieldset.locator("input[type=checkbox]").first)
        elif kind == "numeric":
            taps.append(fieldset.locator("input[type=number]"))
        else:
            taps.append(fieldset.locator("input[type=radio]").first)
    return taps


def answer_every_question(page):
    """The first option, or the first tick, or the lowest number of every question, as a person taps."""
    for tap in answers(page):
        if tap.get_attribute("type") == "number":
            tap.fill(tap.get_attribute("min"))
        else:
            tap.check()


@pytest.mark.parametrize("which", ["demo", "question kinds"])
def test_the_respondent_page_reflows_and_can_be_answered_and_sent(live_server, page_in_language, which):
    survey, _ = demo.create_demo_survey() if which == "demo" else demo.create_types_survey()
    screen, page = open_screen(page_in_language, f"{live_server.url}/s/{survey.slug}/")
    if survey.consent:
        page.wait_for_selector("#agree:enabled")
        screen.in_every_layout("asking for consent", presses=[page.locator("#agree")])
        agree(page)
    page.wait_for_selector("#send:enabled")
    explanation = page.locator(".protection summary")
    screen.in_every_layout("answering", presses=[explanation])
    explanation.click()
    screen.in_every_layout("the explanation open", presses=[page.locator("#send")])

    page.click("#send")
    assert page.locator(".problem:visible").count() == len(survey.ordered_questions()) - (which != "demo")
    screen.in_every_layout("problems shown", presses=answers(page))

    answer_every_question(page)
    screen.in_every_layout("answered", presses=[page.locator("#send")], check=False)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert Response.objects.count() == 1
    details = page.locator("#receipt details summary")
    screen.in_every_layout("sent", presses=[details], check=False)
    details.click()
    screen.in_every_layout("receipt")


def test_the_sign_in_page_and_the_researchers_pages_reflow(live_server, page_in_language):
    owner = make_user("researcher")
    survey = small_survey("small", owner)
    builder.simulate_responses(survey, 400, {1: [0.7, 0.3], 2: demo.TRUTH[3]}, seed=2)
    kinds, _ = demo.create_types_survey()
    kinds.researchers.add(owner)
    demo.simulate_types_responses(kinds, 300, seed=3)
    first, second = plan.of(survey).questions
    ids = [q.id for q in plan.of(kinds).questions]
    screen, page = open_screen(page_in_language, f"{live_server.url}/accounts/login/")
    form = [page.locator("#id_username"), page.locator("#id_password"), page.locator("[type=submit]")]
    screen.in_every_layout("signing in", presses=form)
    page.fill("#id_username", "researcher")
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    page.wait_for_url(f"{live_server.url}/results/")  # the click returns before the next page has loaded
    for path in ["/results/", f"/results/small/?margin=0.1&a={first.id}&b={second.id}",
                 f"/results/{kinds.slug}/?margin=0.5&a={ids[4]}&b={ids[0]}"]:
        if path != "/results/":  # where signing in leads
            page.goto(f"{live_server.url}{path}")
        assert page.url == f"{live_server.url}{path}"
        screen.in_every_layout(path, scrolls=".table-wrap", shown=[page.locator("h1")])

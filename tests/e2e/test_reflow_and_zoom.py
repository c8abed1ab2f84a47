"""The respondent page, the sign-in page and the researcher's pages on a 320 px wide screen, at 200%
browser zoom, and with only the text enlarged to 200%, in every language under test: nothing scrolls
sideways, every control is on screen and at least 24 by 24 px (or clear of its neighbours), no text is
cut off or overlaps other text (a data table may scroll inside its own box), before sending, with the
problems shown and on the receipt; and answering and sending work (Playwright's actions check that
what they press is visible and not covered)."""

import pytest

from surveys.collection import builder, demo, plan
from surveys.collection.models import Response
from tests.e2e.conftest import agree
from tests.e2e.layout import layout_problems
from tests.e2e.test_accessibility import log_in
from tests.e2e.test_dashboard_early_results import small_survey
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

# Browser zoom at 200% of a 1280 by 800 window lays the page out in 640 by 400 CSS px, drawn at two
# device pixels per CSS px. Enlarging only the text sets the root font size: the CSS sizes in rem.
LAYOUTS = {
    "320 px": {"viewport": {"width": 320, "height": 640}},
    "zoom 200%": {"viewport": {"width": 640, "height": 400}, "device_scale_factor": 2},
    "text 200%": {"viewport": {"width": 1280, "height": 800}, "text": "200%"},
}
# CSSOM, not a <style> element: the page's CSP (style-src 'self') refuses inline style sheets.
ENLARGE_TEXT = "(size) => { document.documentElement.style.fontSize = size; }"
BODY_TEXT_SIZE = "parseFloat(getComputedStyle(document.body).fontSize)"


def open_in(page_in_language, layout, url, page=None):
    options = dict(LAYOUTS[layout])
    text = options.pop("text", None)
    page = page or page_in_language(**options)
    page.goto(url)
    if text:
        before = page.evaluate(BODY_TEXT_SIZE)
        page.evaluate(ENLARGE_TEXT, text)
        assert page.evaluate(BODY_TEXT_SIZE) == pytest.approx(before * float(text.rstrip("%")) / 100)
    return page


def answer_every_question(page):
    """The first option, or the first tick, or the lowest number of every question, as a person taps."""
    for fieldset in page.locator("fieldset.question").all():
        kind = fieldset.get_attribute("data-kind")
        if kind == "multi_select":
            fieldset.locator("input[type=checkbox]").first.check()
        elif kind == "numeric":
            number = fieldset.locator("input[type=number]")
            number.fill(number.get_attribute("min"))
        else:
            fieldset.locator("input[type=radio]").first.check()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("which", ["demo", "question kinds"])
def test_the_respondent_page_reflows_and_can_be_answered_and_sent(live_server, page_in_language, layout, which):
    survey, _ = demo.create_demo_survey() if which == "demo" else demo.create_types_survey()
    page = open_in(page_in_language, layout, f"{live_server.url}/s/{survey.slug}/")
    if survey.consent:
        page.wait_for_selector("#agree:enabled")
        assert layout_problems(page) == [], "asking for consent"
        agree(page)
    page.wait_for_selector("#send:enabled")
    assert layout_problems(page) == [], "answering"
    page.locator(".protection summary").click()
    assert layout_problems(page) == [], "the explanation open"

    page.click("#send")
    assert page.locator(".problem:visible").count() == len(survey.ordered_questions()) - (which != "demo")
    assert layout_problems(page) == [], "problems shown"

    answer_every_question(page)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert Response.objects.count() == 1
    page.locator("#receipt details summary").click()
    assert layout_problems(page) == [], "receipt"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_sign_in_page_reflows(live_server, page_in_language, layout):
    page = open_in(page_in_language, layout, f"{live_server.url}/accounts/login/")
    assert layout_problems(page) == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_researchers_pages_reflow(live_server, page_in_language, layout):
    owner = make_user("researcher")
    survey = small_survey("small", owner)
    builder.simulate_responses(survey, 400, {1: [0.7, 0.3], 2: demo.TRUTH[3]}, seed=2)
    kinds, _ = demo.create_types_survey()
    kinds.researchers.add(owner)
    demo.simulate_types_responses(kinds, 300, seed=3)
    first, second = plan.of(survey).questions
    ids = [q.id for q in plan.of(kinds).questions]
    page = open_in(page_in_language, layout, f"{live_server.url}/accounts/login/")
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/")
    for path in ["/results/", f"/results/small/?margin=0.1&a={first.id}&b={second.id}",
                 f"/results/{kinds.slug}/?margin=0.5&a={ids[4]}&b={ids[0]}"]:
        open_in(page_in_language, layout, f"{live_server.url}{path}", page)
        assert page.locator("h1").is_visible()
        assert layout_problems(page, scrolls=".table-wrap") == [], path

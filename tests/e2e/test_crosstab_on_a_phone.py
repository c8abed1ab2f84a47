"""The cross-tab and the break-down on a 390 px phone, in English and Arabic: the page never scrolls sideways;
a table wider than the screen scrolls inside its own region (WCAG 1.4.10 lets a data table scroll in two
dimensions), which is named by the table's caption and reachable and scrollable by keyboard; axe finds no
WCAG 2.2 A/AA violation. Two 4-option questions, so the joint table (each cell a figure, its interval and its
standard error) is wider than a phone. About 25 s on one core: a browser per test, a sign-in and a
dashboard with three cross-tab computations each (most of it the browser's start and the page loads)."""

import pytest

from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.e2e.conftest import axe_violations
from tests.e2e.layout import layout_problems
from tests.e2e.test_staff_pages import log_in
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}

# Per region of a table: its name (the caption it points to), whether it is a focusable region, whether its
# table is wider than the region, and where the region lies across the screen.
REGIONS = """() => [...document.querySelectorAll("#relating .table-wrap, #break-down .table-wrap")].map((wrap) => {
  const caption = document.getElementById(wrap.getAttribute("aria-labelledby") || "");
  const box = wrap.getBoundingClientRect();
  return {role: wrap.getAttribute("role"), tabindex: wrap.tabIndex,
          named: !!caption && wrap.contains(caption) && caption.textContent.trim().length > 0,
          wider: wrap.scrollWidth > wrap.clientWidth, left: box.left, right: box.right};
})"""


@pytest.fixture
def crosstab_page(live_server, page_in_locale, request):
    owner = make_user("researcher")
    survey = builder.create_survey("phone", "On a phone", [
        QuestionSpec("Favourite season?", "krr", epsilon=2.0, options=["Spring", "Summer", "Autumn", "Winter"]),
        QuestionSpec("How do you travel?", "krr", epsilon=2.0, options=["Walking", "Cycling", "Bus", "Car"]),
        QuestionSpec("Ever skipped a class?", "bitflip", epsilon=2.0),
    ], status=Survey.Status.OPEN, epsilon_budget=10.0)
    survey.researchers.add(owner)
    builder.simulate_responses(survey, 300, {}, seed=11)
    season, travel, skipped = plan.of(survey).questions
    page = page_in_locale(request.param, **PHONE)
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/")
    # 300 responses: fewer than the planner asks for each table; shown as pilot figures, marked
    page.goto(f"{live_server.url}/results/phone/?a={season.id}&b={travel.id}&by={skipped.id}&pilot=on")
    page.wait_for_selector("#crosstab")
    return page


@pytest.mark.parametrize("crosstab_page", ["en", "ar"], indirect=True)
def test_the_cross_tab_scrolls_inside_its_own_named_region_on_a_phone(crosstab_page):
    page = crosstab_page
    regions = page.evaluate(REGIONS)
    assert len(regions) == 6  # joint, both conditionals, the report pairs, a break-down table per other question
    assert all(r["role"] == "region" and r["tabindex"] == 0 and r["named"] for r in regions), regions
    assert all(0 <= r["left"] and r["right"] <= 390 for r in regions), regions  # the regions fit the screen
    assert any(r["wider"] for r in regions)  # and at least the joint table is wider than a phone
    assert layout_problems(page, scrolls=".table-wrap") == []
    assert axe_violations(page) == []


@pytest.mark.parametrize("crosstab_page", ["en"], indirect=True)
def test_the_wide_table_is_reached_and_scrolled_by_keyboard(crosstab_page):
    page = crosstab_page
    joint = page.locator(".table-wrap:has(table.joint)")
    page.locator("#crosstab h3").click()  # start just before the tables, as a reader would
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('.table-wrap')"):
            break
    assert page.evaluate("document.activeElement.querySelector('table.joint') !== null")
    assert joint.evaluate("(el) => el.scrollLeft") == 0
    page.keyboard.press("ArrowRight")
    for _ in range(40):  # polled: the CSP refuses wait_for_function's eval
        if joint.evaluate("(el) => el.scrollLeft") > 0:
            break
        page.wait_for_timeout(50)
    assert joint.evaluate("(el) => el.scrollLeft") > 0

"""A researcher follows a series of waves in a real browser: /results/ lists each wave with its number (the waves
share their title), and a wave's dashboard, while the newest wave has just opened without responses, compares the
last two waves with responses (not the first and the last): every question's change in words, a numeric mean's
too, and no "No change is given". Under the CSP, and WCAG 2.2 AA by axe-core."""

from __future__ import annotations

import re

import pytest

from surveys.collection.models import Survey
from tests.aggregation.mean_series_support import habits
from tests.e2e.conftest import axe_violations
from tests.e2e.test_staff_pages import csp_violations, log_in
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_waves_are_listed_by_number_and_a_new_wave_compares_the_last_two_answered(live_server, page):
    owner = make_user("researcher")
    surveys = habits(owner)
    Survey.objects.filter(series=surveys[0].series).update(title="Health habits 2026")
    violations = csp_violations(page)
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/")

    listed = page.locator("table tbody th[scope=row]").all_inner_texts()
    assert sorted(listed) == [f"Health habits 2026, wave {n}" for n in (1, 2, 3)]
    assert axe_violations(page) == []

    page.get_by_role("link", name="Health habits 2026, wave 2").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "Health habits 2026, wave 2 results"
    page.goto(page.url + "?pilot=on")  # these waves have fewer respondents than the planner's
    section = page.locator("section.across-waves")
    assert section.locator("select[name=first]").input_value() == "1"
    assert section.locator("select[name=second]").input_value() == "2"
    text = section.inner_text()
    assert "No change is given" not in text and "or a mean" not in text
    changes = section.locator("ul.changes li").all_inner_texts()
    assert [re.sub(r":.*", "", line) for line in changes] == ["“No”", "“Yes”", "“North”", "“South”"]
    assert all(re.search(r"% in wave 1, .*% in wave 2: a change of [+−]\d", line) for line in changes)
    means = section.locator("section.mean-trend")
    assert means.locator("h3").all_inner_texts() == ["2. Hours online per week?", "3. Drinks last week?",
                                                     "4. Household size?"]
    said = means.locator("p.changes").all_inner_texts()
    assert len(said) == 3 and all(re.fullmatch(
        r"The mean: [\d.]+ in wave 1, [\d.]+ in wave 2: a change of \+[\d.]+ \(95% interval [+−][\d.]+ to "
        r"\+[\d.]+; test of no change: p (= 0\.\d{3}|< 0\.001)\)\.", line) for line in said), said
    rows = means.first.locator("tbody tr").all_inner_texts()
    assert [row.split("\t")[0] for row in rows] == ["1", "2", "3"] and rows[2].split("\t")[1:] == ["–", "–", "–",
                                                                                                     "0"]
    assert "Not compared across waves (several answers): 6. Which did you use?" in text
    assert axe_violations(page) == []
    assert violations == []

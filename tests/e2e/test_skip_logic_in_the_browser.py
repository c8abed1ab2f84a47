"""Skip logic in the respondent's browser (static/js/relevance.js): a question is shown only while its condition on
the direct answers above it holds, live as they change, and a hidden question is neither read nor sent. Answered
with the keyboard alone (Tab, the arrows, Space, typing), in English and Spanish, with no axe-core violation; the
server stores the reports of the questions asked."""

import pytest

from surveys.collection import plan
from surveys.collection.models import Report, Response
from tests.collection.skip_logic_survey import make
from tests.e2e.conftest import axe_violations
from tests.e2e.layout import focused

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {"en": "Do you have children?", "es": "¿Tiene hijos?"}


def tab_to(page, key, most=40):
    for _ in range(most):
        page.keyboard.press("Tab")
        if focused(page)["key"] == key:
            return
    raise AssertionError(f"{key} not reached with Tab")


def shown(page, survey) -> list[str]:
    """The keys of the questions shown, in order."""
    keys = {str(q.id): q.key for q in plan.of(survey)}
    ids = page.evaluate("[...document.querySelectorAll('fieldset.question')].filter((f) => !f.hidden)"
                        ".map((f) => f.dataset.question)")
    return [keys[i] for i in ids]


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_form_with_skip_logic_is_answered_by_keyboard_and_only_the_questions_asked_are_sent(
        live_server, page_in_locale, language):
    survey = make(slug=f"family-{language}")
    ids = {q.key: str(q.id) for q in plan.of(survey)}
    page = page_in_locale(language)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.wait_for_selector("#send:enabled")
    assert WORDS[language] in page.content()
    assert shown(page, survey) == ["region", "kids", "age"]  # nothing answered: no condition holds

    tab_to(page, f"{ids['region']}/0")
    page.keyboard.press("Space")  # North: selected(${region}, 'n') holds
    assert shown(page, survey) == ["region", "kids", "age", "drugs"]
    page.keyboard.press("ArrowDown")  # South, and the age still empty: drugs hidden again
    assert shown(page, survey) == ["region", "kids", "age"]

    tab_to(page, f"{ids['kids']}/0")
    page.keyboard.press("ArrowDown")  # Yes
    assert shown(page, survey) == ["region", "kids", "hit", "age"]
    tab_to(page, f"{ids['hit']}/0")
    page.keyboard.press("Space")

    tab_to(page, f"answer-{ids['age']}")
    page.keyboard.type("25")  # under 30: drugs asked
    assert shown(page, survey) == ["region", "kids", "hit", "age", "drugs"]
    tab_to(page, f"{ids['drugs']}/0")
    page.keyboard.press("Space")  # answered, then hidden again by the age: not sent
    assert axe_violations(page) == []
    page.keyboard.press("Shift+Tab")
    assert focused(page)["key"] == f"answer-{ids['age']}"
    page.keyboard.press("Control+A")
    page.keyboard.type("45")
    assert shown(page, survey) == ["region", "kids", "hit", "age"]

    tab_to(page, "send")
    page.keyboard.press("Enter")
    page.wait_for_selector("#receipt:not([hidden])")
    assert axe_violations(page) == []
    assert Response.objects.count() == 1
    reports = dict(Report.objects.values_list("question__name", "value"))
    assert sorted(reports) == ["age", "hit", "kids", "region"]  # hit's report is randomized: any value
    assert (reports["region"], reports["kids"], reports["age"]) == (1, 1, 45 - 18)  # sent as given

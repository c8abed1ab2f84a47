"""The confidence sequences' planned size in the admin: set at Open (the planner's figure for ±5 points at 95%
unless typed), recorded in the history; changed after the first report only with a reason, recorded with the
number of responses then; free before the first report; never made blank again."""

import pytest
from django.core.exceptions import ValidationError

from ldp.sequences.fractions import anytime_respondents_needed
from surveys.aggregation.results import service as results
from surveys.collection import lifecycle, replanning
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses
from tests.collection.pages import parse
from tests.collection.test_admin import SURVEYS, current_form, messages_on, survey_url
from tests.history.test_admin_recording import recorded

REASON_NEEDED = ("The survey has responses: say why its intervals are re-planned (the reason is kept in its "
                 "history).")


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def draft(survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    return Survey.objects.get(pk=survey.pk)


def planner_figure(survey, confidence=0.95):
    """Worked out here from ldp: the most respondents any question needs for ±5 points at every look."""
    return max(anytime_respondents_needed(q.mechanism(), 0.05, confidence) for q in survey.questions.all())


def stored(survey):
    return Survey.objects.filter(pk=survey.pk).values_list(
        "planned_size", "planned_confidence", "replanned_at", "replan_reason").get()


def planned(survey, size, confidence=0.95):
    Survey.objects.filter(pk=survey.pk).update(planned_size=size, planned_confidence=confidence)


def change(admin_client, survey, **fields):
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data.update({name: [str(value)] for name, value in fields.items()})
    return admin_client.post(survey_url(survey), data)


def errors_on(response):
    return [item.text for item in parse(response.content).find_all("ul", **{"class": "errorlist"})]


def test_opening_sets_the_planners_figure_and_the_history_records_it(admin_client, draft):
    response = admin_client.post(f"{SURVEYS}{draft.pk}/open/", follow=True)
    size = planner_figure(draft)
    assert stored(draft) == (size, 0.95, None, "")
    assert recorded(draft.pk) == [("super", "changed", [
        ("status", "Draft", "Open"), ("planned size", None, str(size)), ("planned confidence", None, "0.95")])]
    assert (f"Health: its intervals valid however often you look are planned for {size} respondents at 95%."
            in messages_on(response))


def test_a_size_and_confidence_typed_before_opening_are_kept(admin_client, draft):
    assert change(admin_client, draft, planned_size=800, planned_confidence=0.9).status_code == 302
    admin_client.post(SURVEYS, {"action": "open_surveys", "_selected_action": [draft.pk], "index": "0"})
    assert stored(draft) == (800, 0.9, None, "")


def test_a_confidence_alone_gives_the_planners_figure_at_it(draft):
    planned(draft, None, 0.9)
    lifecycle.open_survey(Survey.objects.get(pk=draft.pk))
    assert stored(draft) == (planner_figure(draft, 0.9), 0.9, None, "")


def test_reopening_a_closed_survey_keeps_its_plan(draft):
    planned(draft, 1234)
    Survey.objects.filter(pk=draft.pk).update(status=Survey.Status.CLOSED)
    lifecycle.open_survey(Survey.objects.get(pk=draft.pk))
    assert stored(draft) == (1234, 0.95, None, "")


def test_a_replan_after_the_first_report_is_recorded_with_its_reason_and_n(admin_client, survey):
    planned(survey, 3000)
    add_responses(survey, 61, seed=3)
    response = change(admin_client, survey, planned_size=500, reason="  The funder cut the sample.  ")
    assert response.status_code == 302, errors_on(response)
    assert stored(survey) == (500, 0.95, 61, "The funder cut the sample.")
    assert recorded(survey.pk) == [("super", "changed", [
        ("planned size", "3000", "500"), ("re-planned at n", None, "61"),
        ("reason for re-planning", None, "The funder cut the sample.")])]


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_replan_without_a_reason_is_refused_and_nothing_is_stored(admin_client, survey, reason):
    planned(survey, 3000)
    add_responses(survey, 61, seed=3)
    response = change(admin_client, survey, planned_size=500, reason=reason)
    assert response.status_code == 200 and REASON_NEEDED in errors_on(response)
    assert (stored(survey), recorded(survey.pk)) == ((3000, 0.95, None, ""), [])


def test_a_new_confidence_after_the_first_report_needs_a_reason_too(admin_client, survey):
    planned(survey, 3000)
    add_responses(survey, 1, seed=3)
    response = change(admin_client, survey, planned_confidence=0.99)
    assert response.status_code == 200 and REASON_NEEDED in errors_on(response)


def test_other_changes_after_the_first_report_need_no_reason(admin_client, survey):
    planned(survey, 3000)
    add_responses(survey, 5, seed=3)
    assert change(admin_client, survey, title="Health 2").status_code == 302
    assert stored(survey) == (3000, 0.95, None, "")


def test_before_the_first_report_the_plan_changes_freely(admin_client, survey):
    planned(survey, 3000)
    assert change(admin_client, survey, planned_size=500).status_code == 302
    assert stored(survey) == (500, 0.95, None, "")


def test_a_planned_size_is_never_made_blank_again(admin_client, survey):
    planned(survey, 3000)
    response = change(admin_client, survey, planned_size="")
    assert response.status_code == 200
    assert "A planned size once set cannot be made blank: type the size to plan for." in errors_on(response)
    assert stored(survey) == (3000, 0.95, None, "")


def test_the_service_refuses_a_reason_of_spaces(survey):
    planned(survey, 3000)
    add_responses(survey, 2, seed=3)
    found = Survey.objects.get(pk=survey.pk)
    with pytest.raises(ValidationError) as refused:
        replanning.replan(found, 500, 0.95, " \n ")
    assert (refused.value.messages, found.planned_size, stored(survey)) == ([REASON_NEEDED], 3000,
                                                                             (3000, 0.95, None, ""))


def test_a_new_confidence_alone_after_the_first_report_re_plans_the_sequences_level(admin_client, survey):
    planned(survey, 3000)
    add_responses(survey, 61, seed=3)
    response = change(admin_client, survey, planned_confidence=0.9, reason="Agreed with the funder: 90%.")
    assert response.status_code == 302, errors_on(response)
    assert stored(survey) == (3000, 0.9, 61, "Agreed with the funder: 90%.")
    assert recorded(survey.pk) == [("super", "changed", [
        ("planned confidence", "0.95", "0.9"), ("re-planned at n", None, "61"),
        ("reason for re-planning", None, "Agreed with the funder: 90%.")])]
    found = results.survey_results(Survey.objects.get(pk=survey.pk))
    assert (found.planned, found.sequence_confidence) == (3000, 0.9)


def test_a_planned_confidence_is_never_made_blank_again(admin_client, survey):
    planned(survey, 3000, 0.9)
    response = change(admin_client, survey, planned_confidence="")
    assert response.status_code == 200
    assert "A planned confidence once set cannot be made blank: type the level to plan for." in errors_on(response)
    assert stored(survey) == (3000, 0.9, None, "")

"""Skip logic in the admin: a question's condition ("asked only if") typed on the survey page or the question's own
page, refused with the reason when it refers to a randomized question, a later one or no question, or cannot be
read; recorded in the configuration history; frozen with the other parameters once the survey has reports."""

import pytest
from django.core.exceptions import ValidationError
from django.utils.html import escape

from surveys.collection import lifecycle, plan, submission
from surveys.collection.models import FrozenMechanism, Question, Survey
from surveys.history.models import ConfigurationChange
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.collection.skip_logic_survey import KIDS, make
from tests.collection.test_admin import current_form, question_url, set_question, survey_url

pytestmark = pytest.mark.django_db

RANDOMIZED = ("the condition refers to ${hit}, a randomized question: whether a follow-up was asked would reveal "
              "the randomized answer. Refer to questions asked directly only.")
FORWARD = ("the condition refers to ${age}, which is not asked before this question: a condition may only refer to "
           "earlier questions (no cycles)")


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def draft():
    survey = make()
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    survey.refresh_from_db()
    return survey


def conditions(survey) -> list[str]:
    return list(survey.questions.order_by("order").values_list("relevant", flat=True))


@pytest.mark.parametrize(("order", "condition", "words"), [
    (5, "${hit} = 'yes'", RANDOMIZED), (3, "${age} > 30", FORWARD),
    (3, "${nobody} = 1", "the condition refers to ${nobody}, but no question is named nobody")])
def test_the_survey_page_refuses_a_condition_naming_the_question_and_why(admin_client, draft, order, condition, words):
    before = conditions(draft)
    data = set_question(current_form(admin_client, survey_url(draft), "survey_form"), question(draft, order),
                        relevant=condition)

    response = admin_client.post(survey_url(draft), data)

    assert response.status_code == 200
    assert escape(f"Question {order}, asked only if: {words}") in response.content.decode()
    assert conditions(draft) == before


def test_the_survey_page_refuses_a_condition_it_cannot_read_on_its_row(admin_client, draft):
    data = set_question(current_form(admin_client, survey_url(draft), "survey_form"), question(draft, 3),
                        relevant="${kids} == 'yes'")

    response = admin_client.post(survey_url(draft), data)

    assert response.status_code == 200
    assert escape("the condition cannot be read: expected a value, found “=”") in response.content.decode()
    assert question(draft, 3).relevant == KIDS


def test_a_condition_saved_on_the_survey_page_is_recorded_in_the_history(admin_client, draft):
    data = set_question(current_form(admin_client, survey_url(draft), "survey_form"), question(draft, 3),
                        relevant="${kids} = 'yes' and ${region} = 'n'")

    assert admin_client.post(survey_url(draft), data).status_code == 302

    assert question(draft, 3).relevant == "${kids} = 'yes' and ${region} = 'n'"
    change = ConfigurationChange.objects.filter(survey_id=draft.pk).latest("pk")
    pk = question(draft, 3).pk  # the history names a question by its id
    assert change.changes == [{"field": f"Question {pk} “Have you ever hit one of your children?”: asked only if",
                               "before": KIDS, "after": "${kids} = 'yes' and ${region} = 'n'"}]


@pytest.mark.parametrize(("order", "condition", "words"), [(5, "${hit} = 'yes'", RANDOMIZED),
                                                           (3, "${age} > 30", FORWARD)])
def test_the_question_page_refuses_a_condition_with_the_reason(admin_client, draft, order, condition, words):
    before = conditions(draft)
    target = question(draft, order)
    data = current_form(admin_client, question_url(target), "question_form")
    data["relevant"] = [condition]

    response = admin_client.post(question_url(target), data)

    assert response.status_code == 200
    assert escape(words) in response.content.decode()
    assert conditions(draft) == before


def test_a_condition_is_frozen_once_the_survey_has_reports():
    survey = make()
    current = plan.of(survey)
    submission.submit(survey, {"version": current.version, "key": "9b0c6a43-43a6-4b5f-a7c6-4f3b3a0c9f11",
                               "reports": {str(current.questions[0].id): 1, str(current.questions[1].id): 0,
                                           str(current.questions[3].id): 40}})
    target = Question.objects.get(survey=survey, order=3)
    target.relevant = "${kids} = 'no'"

    with pytest.raises(FrozenMechanism):
        target.save()


def test_a_read_only_row_shows_its_condition_once_the_survey_has_reports(admin_client):
    survey = make()
    current = plan.of(survey)
    submission.submit(survey, {"version": current.version, "key": "0c3bd2a6-7a8e-4e43-9a55-0c8d8e6f3b21",
                               "reports": {str(current.questions[0].id): 1, str(current.questions[1].id): 1,
                                           str(current.questions[2].id): 0, str(current.questions[3].id): 40}})
    page = parse(admin_client.get(survey_url(survey)).content)

    settings = page.by_id("questions-2").find("div", **{"class": "form-row field-settings"})
    assert [line for line in settings.find("div", **{"class": "readonly"}).children if isinstance(line, str)] == [
        "Mechanism: q-randomized response (yes/no)", "Q: 0.5", f"Asked only if: {KIDS}"]


def test_options_retyped_on_the_survey_page_keep_the_choice_names_conditions_compare(admin_client, draft):
    data = set_question(current_form(admin_client, survey_url(draft), "survey_form"), question(draft, 1),
                        options_text="North\nSouth\nEast")

    assert admin_client.post(survey_url(draft), data).status_code == 302

    assert list(question(draft, 1).options.order_by("order").values_list("label", "name")) == [
        ("North", "n"), ("South", "s"), ("East", "")]
    assert plan.of(draft).questions[0].choices == ("n", "s", "east")


def test_a_survey_whose_condition_names_a_question_renamed_since_cannot_open(draft):
    Question.objects.filter(survey=draft, name="kids").update(name="children")

    with pytest.raises(ValidationError) as refused:
        lifecycle.open_survey(draft)

    assert refused.value.messages == ["cannot open: question 3: the condition refers to ${kids}, but no question is "
                                      "named kids"]
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.DRAFT

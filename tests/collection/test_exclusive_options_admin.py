"""Marking a multi-select's option exclusive ("None of these") in the admin: on the survey page (a box
naming the options, one per line) and on the question's own page (a checkbox per option); refused on
another kind of question, for a name that is no option, and when fewer than two options are left to
tick together; frozen once the survey has a report, and checked again when a survey opens."""

import pytest
from django.core.exceptions import ValidationError

from surveys.collection import builder, lifecycle, submission
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import FrozenMechanism, Option, OptionTranslation, Survey
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.collection.test_admin import (
    QUESTIONS,
    SURVEYS,
    add_inline_forms,
    current_form,
    inline_index,
    new_survey_form,
    survey_url,
)
from tests.factories import valid_payload
from tests.history.test_admin_recording import recorded

ONLY_MULTI = "Only multi-select questions have exclusive options (such as “None of these”)."
TOO_FEW = "At least two options must not be exclusive; otherwise ask a single-choice question."


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def row(kind="multi_select", mechanism="multiselect", options="Tobacco\nAlcohol\nNone of these", exclusive="",
        **more):
    return {"text": "Which have you used?", "kind": kind, "mechanism_name": mechanism, "epsilon": 1.0, "q": None,
            "options_text": options, "exclusive_options": exclusive, **more}


def save(admin_client, *rows):
    return admin_client.post(f"{SURVEYS}add/", add_inline_forms(new_survey_form(admin_client, epsilon_budget=10),
                                                                "questions", *rows))


def field_error(response, field):
    found = parse(response.content).find("div", **{"class": f"form-row errors field-{field}"})
    return found.text if found is not None else None


def flags(q):
    return [(o.label, o.exclusive) for o in q.ordered_options()]


@pytest.fixture
def none_of_these(db):
    """A draft survey: 1 multi-select (Tobacco, Alcohol, None of these; the last exclusive), 2 single choice."""
    return builder.create_survey("none", "None", [
        QuestionSpec("Which have you used?", "multiselect", epsilon=1.0, kind="multi_select",
                     options=["Tobacco", "Alcohol", "None of these"], exclusive=["None of these"]),
        QuestionSpec("Where?", "krr", epsilon=1.0, options=["Home", "Work"]),
    ], epsilon_budget=5.0, retention_days=30)


# --- the survey page ---------------------------------------------------------------------------------


def test_an_option_named_exclusive_on_the_survey_page_is_saved_and_shown_again(admin_client):
    assert save(admin_client, row(exclusive="none of THESE")).status_code == 302  # any case, as typed above
    survey = Survey.objects.get(slug="habits")
    q = survey.questions.get()
    assert flags(q) == [("Tobacco", False), ("Alcohol", False), ("None of these", True)]
    data = current_form(admin_client, survey_url(survey), "survey_form")
    assert data[f"questions-{inline_index(data, q)}-exclusive_options"] == ["None of these"]


def test_several_options_may_be_exclusive_prefer_not_to_say_too(admin_client):
    response = save(admin_client, row(exclusive="None of these\nPrefer not to say", prefer_not_to_say="on"))
    assert response.status_code == 302
    assert flags(Survey.objects.get(slug="habits").questions.get()) == [
        ("Tobacco", False), ("Alcohol", False), ("None of these", True), ("Prefer not to say", True)]


@pytest.mark.parametrize("values, words", [
    ({"kind": "single_choice", "mechanism": "krr"}, ONLY_MULTI),
    ({"kind": "ordinal", "mechanism": "krr", "options": "Low = 1\nHigh = 2\nNone of these"}, ONLY_MULTI),
    ({"exclusive": "Nothing"}, "Not among this question's options: Nothing."),
    ({"exclusive": "Tobacco\nNone of these"}, TOO_FEW),
])
def test_an_exclusive_option_that_cannot_be_is_refused_on_its_field_and_nothing_is_saved(admin_client, values,
                                                                                       words):
    exclusive = values.pop("exclusive", "None of these")
    response = save(admin_client, row(exclusive=exclusive, **values))
    assert response.status_code == 200
    assert words in field_error(response, "exclusive_options")
    assert not Survey.objects.filter(slug="habits").exists()


def test_changing_only_the_flags_keeps_the_options_and_their_translations(admin_client, none_of_these):
    q = question(none_of_these, 1)
    before = list(q.options.order_by("order").values_list("pk", flat=True))
    OptionTranslation.objects.create(option_id=before[2], language="es", label="Ninguna")
    data = current_form(admin_client, survey_url(none_of_these), "survey_form")
    data[f"questions-{inline_index(data, q)}-exclusive_options"] = [""]
    assert admin_client.post(survey_url(none_of_these), data).status_code == 302
    assert flags(q) == [("Tobacco", False), ("Alcohol", False), ("None of these", False)]
    assert list(q.options.order_by("order").values_list("pk", flat=True)) == before
    assert OptionTranslation.objects.filter(option_id=before[2], label="Ninguna").exists()


def test_the_exclusive_box_is_offered_for_multi_select_questions_only(admin_client, none_of_these):
    config = admin_client.get(survey_url(none_of_these)).context["survey_admin_config"]["kinds"]
    assert {kind: shown["exclusive"] for kind, shown in config.items()} == {
        "yes_no": False, "single_choice": False, "multi_select": True, "numeric": False, "ordinal": False}


# --- the question's own page ---------------------------------------------------------------------------


def test_the_question_page_marks_an_option_exclusive_with_its_checkbox(admin_client, none_of_these):
    q = question(none_of_these, 1)
    data = current_form(admin_client, f"{QUESTIONS}{q.pk}/change/", "question_form")
    assert data["options-2-exclusive"] == ["on"] and "options-0-exclusive" not in data
    data["options-0-exclusive"] = ["on"]  # "Tobacco" too: Alcohol is left alone
    response = admin_client.post(f"{QUESTIONS}{q.pk}/change/", data)
    assert response.status_code == 200 and TOO_FEW in response.content.decode()
    del data["options-0-exclusive"], data["options-2-exclusive"]
    assert admin_client.post(f"{QUESTIONS}{q.pk}/change/", data).status_code == 302
    assert flags(q) == [("Tobacco", False), ("Alcohol", False), ("None of these", False)]


def test_a_change_of_the_exclusive_options_is_recorded_in_the_history(admin_client, none_of_these):
    q = question(none_of_these, 1)
    data = current_form(admin_client, f"{QUESTIONS}{q.pk}/change/", "question_form")
    del data["options-2-exclusive"]
    assert admin_client.post(f"{QUESTIONS}{q.pk}/change/", data).status_code == 302
    data = current_form(admin_client, survey_url(none_of_these), "survey_form")
    data[f"questions-{inline_index(data, q)}-exclusive_options"] = ["Alcohol"]
    assert admin_client.post(survey_url(none_of_these), data).status_code == 302
    field = f"Question {q.pk} “Which have you used?”: exclusive options"
    assert recorded(none_of_these.pk) == [("super", "changed", [(field, "None of these", None)]),
                                          ("super", "changed", [(field, None, "Alcohol")])]


def test_the_question_page_refuses_an_exclusive_option_on_a_single_choice_question(admin_client, none_of_these):
    q = question(none_of_these, 2)
    data = current_form(admin_client, f"{QUESTIONS}{q.pk}/change/", "question_form")
    data["options-1-exclusive"] = ["on"]
    response = admin_client.post(f"{QUESTIONS}{q.pk}/change/", data)
    assert response.status_code == 200 and ONLY_MULTI in response.content.decode()
    assert not Option.objects.filter(question=q, exclusive=True).exists()


def test_the_model_refuses_an_exclusive_option_on_another_kind_naming_the_field(none_of_these):
    option = question(none_of_these, 2).ordered_options()[1]
    option.exclusive = True
    with pytest.raises(ValidationError) as refused:
        option.full_clean()
    assert refused.value.message_dict == {"exclusive": [ONLY_MULTI]}


# --- opening and reports ------------------------------------------------------------------------------


def test_a_survey_does_not_open_with_an_exclusive_option_on_a_single_choice_question(none_of_these):
    Option.objects.filter(question=question(none_of_these, 2), label="Work").update(exclusive=True)
    with pytest.raises(ValidationError) as refused:
        lifecycle.open_survey(none_of_these)
    assert refused.value.messages == [f"cannot open: question 2: {ONLY_MULTI}"]
    Option.objects.filter(question=question(none_of_these, 2)).update(exclusive=False)
    lifecycle.open_survey(none_of_these)  # the exclusive option of question 1 is fine


def test_once_the_survey_has_a_report_the_flag_is_frozen_and_shown_read_only(admin_client, none_of_these):
    lifecycle.open_survey(none_of_these)
    submission.submit(none_of_these, valid_payload(none_of_these))
    option = question(none_of_these, 1).ordered_options()[2]
    option.exclusive = False
    with pytest.raises(FrozenMechanism):
        option.save()
    page = parse(admin_client.get(survey_url(none_of_these)).content)
    settings = page.by_id("questions-0").find("div", **{"class": "form-row field-settings"})
    assert [line for line in settings.find("div", **{"class": "readonly"}).children if isinstance(line, str)][:2] == [
        "Options: Tobacco, Alcohol, None of these", "Exclusive options: None of these"]

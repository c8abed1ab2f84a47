"""Translations in the admin: a survey's languages inline, a page per language for the questions'
texts and the options' labels (editable after the first report: text only), each change in the
configuration history; the Open button and action refuse a language with a missing text."""

import pytest

from surveys.collection import builder
from surveys.collection.models import OptionTranslation, QuestionTranslation, Survey, SurveyTranslation
from surveys.history.models import ConfigurationChange
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.collection.test_admin import SURVEYS, add_inline_forms, current_form, messages_on, survey_url
from tests.collection.test_languages import SPANISH


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def translate_url(survey, language):
    return f"{SURVEYS}{survey.pk}/translate/{language}/"


def offer(survey, language="es", title="Salud"):
    SurveyTranslation.objects.create(survey=survey, language=language, title=title)


def boxes(page):
    """The page's text boxes by name, with what they hold: a question's text in a text area (a long question
    shows whole), an option's label in a one-line box."""
    found = [f for f in page.iter() if f.tag == "textarea" or (f.tag == "input" and f.attrs.get("type") == "text")]
    return {f.attrs["name"]: f.raw_text.strip("\n") if f.tag == "textarea" else f.attrs.get("value", "") for f in found}


def as_draft(survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    survey.refresh_from_db()
    return survey


@pytest.mark.slow
def test_a_language_is_added_on_the_survey_page_and_recorded(admin_client, survey):
    data = add_inline_forms(current_form(admin_client, survey_url(survey), "survey_form"), "translations",
                            {"language": "es", "title": "Salud", "description": "", "consent": ""})
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 302
    assert list(SurveyTranslation.objects.values_list("language", "title")) == [("es", "Salud")]
    change = ConfigurationChange.objects.get()
    assert {"field": "title (es)", "before": None, "after": "Salud"} in change.changes


@pytest.mark.slow
def test_the_survey_own_language_is_refused_as_a_translation(admin_client, survey):
    data = add_inline_forms(current_form(admin_client, survey_url(survey), "survey_form"), "translations",
                            {"language": "en", "title": "Health again", "description": "", "consent": ""})
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 200
    assert "This is the survey&#x27;s own language" in response.content.decode()
    assert SurveyTranslation.objects.count() == 0 and ConfigurationChange.objects.count() == 0


@pytest.mark.slow
def test_the_translation_page_saves_every_text_and_records_it(admin_client, responded):
    offer(responded)
    page = parse(admin_client.get(translate_url(responded, "es")).content.decode())
    names = list(boxes(page))
    assert len(names) == 4 + 3 + 4  # four questions, then the options of questions 3 and 4
    data = {name: f"es {name}" for name in names}
    response = admin_client.post(translate_url(responded, "es"), data)
    assert response.status_code == 302  # after the first report too: text only
    assert QuestionTranslation.objects.count() == 4 and OptionTranslation.objects.count() == 7
    drugs = question(responded, 3)
    assert QuestionTranslation.objects.get(question=drugs).text == f"es question-{drugs.pk}"
    change = ConfigurationChange.objects.get()
    assert {"field": f"Question {drugs.pk} “Drugs?”: text (es)", "before": None,
            "after": f"es question-{drugs.pk}"} in change.changes


def test_a_cleared_box_removes_its_translation(admin_client, survey):
    builder.translate(survey, SPANISH)
    page = parse(admin_client.get(translate_url(survey, "es")).content.decode())
    data = boxes(page)
    data[f"question-{question(survey, 1).pk}"] = "  "
    admin_client.post(translate_url(survey, "es"), data)
    assert not QuestionTranslation.objects.filter(question=question(survey, 1)).exists()
    assert QuestionTranslation.objects.count() == 3


def test_a_language_not_offered_has_no_translation_page(admin_client, survey):
    assert admin_client.get(translate_url(survey, "fr")).status_code == 404


@pytest.mark.slow
def test_the_open_button_refuses_a_missing_translation_naming_it(admin_client, survey):
    survey = as_draft(survey)
    offer(survey)
    response = admin_client.post(f"{SURVEYS}{survey.pk}/open/", follow=True)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT
    assert messages_on(response) == [
        "Health: cannot open: no Spanish (es) text for question 1, question 2, question 3, question 3 option 1 "
        "“Never”, question 3 option 2 “Sometimes”, question 3 option 3 “Often”, question 4, question 4 option 1 "
        "“A”, question 4 option 2 “B”, question 4 option 3 “C”, question 4 option 4 “D”"]


def test_the_open_action_refuses_a_missing_translation(admin_client, survey):
    survey = as_draft(survey)
    builder.translate(survey, SPANISH)
    QuestionTranslation.objects.filter(question=question(survey, 4)).delete()
    response = admin_client.post(SURVEYS, {"action": "open_surveys", "_selected_action": [survey.pk]}, follow=True)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT
    assert messages_on(response) == ["Health: cannot open: no Spanish (es) text for question 4"]


def test_a_prefer_not_to_say_option_comes_translated_and_other_labels_do_not(admin_client, kinds_survey):
    offer(kinds_survey, "fr", "Types")
    shown = boxes(parse(admin_client.get(translate_url(kinds_survey, "fr")).content.decode()))
    labels = {option.label: shown[f"option-{option.pk}"] for q in kinds_survey.ordered_questions()
              for option in q.ordered_options()}
    assert labels["Prefer not to say"] == "Je préfère ne pas répondre"
    assert {label: text for label, text in labels.items() if label != "Prefer not to say"} == {
        label: "" for label in labels if label != "Prefer not to say"}


def test_the_question_texts_are_text_areas_that_show_a_long_question_whole(admin_client, survey):
    offer(survey)
    page = parse(admin_client.get(translate_url(survey, "es")).content.decode())
    assert [f.attrs["name"] for f in page.find_all("textarea")] == [
        f"question-{q.pk}" for q in survey.ordered_questions()]
    inline = parse(admin_client.get(survey_url(survey)).content.decode())
    assert inline.find("textarea", name="questions-0-text").attrs["rows"] == "2"

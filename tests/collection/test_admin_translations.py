"""Translations in the admin: one page per language for the survey's own texts, the questions' texts and
the options' labels, saved in one transaction or not at all (editable after the first report: text only),
each change in the configuration history; the survey page links each language's page and removes a
language; the Open button and action refuse a language with a missing text."""

import pytest
from django.db import DatabaseError

from surveys.collection import builder
from surveys.collection.models import OptionTranslation, QuestionTranslation, Survey, SurveyTranslation
from surveys.history.models import ConfigurationChange
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.collection.test_admin import SURVEYS, current_form, messages_on, survey_url
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


def translations_state(survey):
    """Every translated text of the survey, whole."""
    return (sorted(SurveyTranslation.objects.filter(survey=survey).values_list("language", "title", "description",
                                                                                "consent")),
            sorted(QuestionTranslation.objects.filter(question__survey=survey)
                   .values_list("question_id", "language", "text")),
            sorted(OptionTranslation.objects.filter(option__question__survey=survey)
                   .values_list("option_id", "language", "label")))


def spanish_data(survey):
    """A whole page of Spanish texts: the survey's, each question's and each option's."""
    data = {"title": "Salud", "description": "Una encuesta.", "consent": "Acepto o no."}
    for q in survey.ordered_questions():
        data[f"question-{q.pk}"] = f"¿{q.text[:-1]}? es"
        for option in q.ordered_options():
            data[f"option-{option.pk}"] = f"{option.label} es"
    return data


def test_one_post_offers_the_language_with_the_survey_and_question_texts_and_records_it(admin_client, survey):
    page = parse(admin_client.get(translate_url(survey, "es")).content.decode())
    assert list(boxes(page)) == list(spanish_data(survey))  # the survey's texts, then each question's, one page
    response = admin_client.post(translate_url(survey, "es"), spanish_data(survey))
    assert response.status_code == 302
    drugs, party = question(survey, 3), question(survey, 4)
    assert translations_state(survey) == (
        [("es", "Salud", "Una encuesta.", "Acepto o no.")],
        sorted((q.pk, "es", f"¿{q.text[:-1]}? es") for q in survey.ordered_questions()),
        sorted((o.pk, "es", f"{o.label} es") for q in (drugs, party) for o in q.ordered_options()))
    change = ConfigurationChange.objects.get()  # one change for the whole page
    assert {"field": "title (es)", "before": None, "after": "Salud"} in change.changes
    drugs_text = {"field": f"Question {drugs.pk} “Drugs?”: text (es)", "before": None, "after": "¿Drugs? es"}
    assert drugs_text in change.changes


@pytest.mark.parametrize(("field", "value", "error"), [
    ("title", " ", "This field is required."),
    ("option", "x" * 201, "Ensure this value has at most 200 characters (it has 201)."),
    ("question", "x" * 501, "Ensure this value has at most 500 characters (it has 501)."),
], ids=["empty-title", "long-option", "long-question"])
def test_an_invalid_field_stores_nothing_and_answers_400_naming_it(admin_client, survey, field, value, error):
    builder.translate(survey, SPANISH)
    before = translations_state(survey)
    data = spanish_data(survey)
    name = {"title": "title", "option": f"option-{question(survey, 4).ordered_options()[3].pk}",
            "question": f"question-{question(survey, 2).pk}"}[field]
    data[name] = value
    response = admin_client.post(translate_url(survey, "es"), data)
    assert response.status_code == 400
    page = parse(response.content.decode())
    row = page.find("textarea", id=f"id_{name}") or page.find("input", id=f"id_{name}")
    assert [li.text for li in page.find_all("li") if li.parent.attrs.get("class") == "errorlist"] == [error]
    assert row.attrs["aria-invalid"] == "true"
    assert "Please correct the error below: nothing was saved." in page.text
    assert translations_state(survey) == before and ConfigurationChange.objects.count() == 0


def test_a_page_loaded_before_a_question_was_added_is_refused_not_taken_as_cleared(admin_client, survey):
    builder.translate(survey, SPANISH)
    before = translations_state(survey)
    data = spanish_data(survey)
    del data[f"question-{question(survey, 4).pk}"]  # the box this page did not have
    response = admin_client.post(translate_url(survey, "es"), {**data, "title": "Salud nueva"})
    assert response.status_code == 400
    assert "The survey's questions changed since this page was loaded: reload it (nothing was saved)." in \
        parse(response.content.decode()).text
    assert translations_state(survey) == before and ConfigurationChange.objects.count() == 0


def test_a_new_language_with_a_refused_field_is_not_offered(admin_client, survey):
    data = {**spanish_data(survey), "title": ""}
    assert admin_client.post(translate_url(survey, "es"), data).status_code == 400
    assert translations_state(survey) == ([], [], [])


@pytest.fixture
def refused_label(db):
    """The database itself refuses an option label "refused" (a trigger): a failure after the first writes."""
    from django.db import connection
    table = OptionTranslation._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(f"CREATE TRIGGER refuse_label BEFORE INSERT ON {table} WHEN NEW.label = 'refused' "
                           "BEGIN SELECT RAISE(ABORT, 'refused'); END")
        else:
            cursor.execute("CREATE FUNCTION refuse_label() RETURNS trigger AS $$ BEGIN IF NEW.label = 'refused' "
                           "THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql")
            cursor.execute(f"CREATE TRIGGER refuse_label BEFORE INSERT ON {table} FOR EACH ROW "
                           "EXECUTE FUNCTION refuse_label()")


def test_a_failure_while_saving_stores_nothing(admin_client, survey, refused_label):
    data = spanish_data(survey)
    data[f"option-{question(survey, 4).ordered_options()[3].pk}"] = "refused"  # the page's last write
    with pytest.raises(DatabaseError):
        admin_client.post(translate_url(survey, "es"), data)
    assert translations_state(survey) == ([], [], []) and ConfigurationChange.objects.count() == 0


def test_the_survey_page_links_each_language_and_offers_the_others(admin_client, survey):
    builder.translate(survey, SPANISH)
    page = parse(admin_client.get(survey_url(survey)).content.decode())
    field = next(div for div in page.find_all("div") if "field-translations" in div.attrs.get("class", "").split())
    assert [(a.attrs["href"], a.text) for a in field.find_all("a")] == [
        (translate_url(survey, "es"), "Translate into Spanish (es)"), (translate_url(survey, "fr"), "Add French (fr)"),
        (translate_url(survey, "ar"), "Add Arabic (ar)")]


def test_in_a_spanish_admin_the_links_and_refusals_write_the_languages_in_lower_case(admin_client, survey):
    as_draft(survey)
    builder.translate(survey, SPANISH)
    QuestionTranslation.objects.filter(question=question(survey, 4)).delete()
    page = parse(admin_client.get(survey_url(survey), HTTP_ACCEPT_LANGUAGE="es").content.decode())
    field = next(div for div in page.find_all("div") if "field-translations" in div.attrs.get("class", "").split())
    assert [a.text for a in field.find_all("a")] == [
        "Traducir al español (es)", "Añadir francés (fr)", "Añadir árabe (ar)"]
    response = admin_client.post(SURVEYS, {"action": "open_surveys", "_selected_action": [survey.pk]}, follow=True,
                                 HTTP_ACCEPT_LANGUAGE="es")
    assert messages_on(response) == ["Health: no se puede abrir: no hay texto en español (es) para la pregunta 4"]


@pytest.mark.slow
def test_a_language_is_removed_on_the_survey_page_and_recorded(admin_client, survey):
    builder.translate(survey, SPANISH)
    data = current_form(admin_client, survey_url(survey), "survey_form")
    assert "translations-0-title" not in data  # its texts are on its own page
    data["translations-0-DELETE"] = ["on"]
    assert admin_client.post(survey_url(survey), data).status_code == 302
    assert translations_state(survey) == ([], [], [])
    assert {"field": "title (es)", "before": "Salud", "after": None} in ConfigurationChange.objects.get().changes


@pytest.mark.slow
def test_the_survey_own_language_is_refused_as_a_translation(admin_client, survey):
    builder.translate(survey, SPANISH)
    before = translations_state(survey)
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data["language"] = ["es"]
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 200
    assert "This is the survey&#x27;s own language" in response.content.decode()
    assert Survey.objects.get(pk=survey.pk).language == "en" and translations_state(survey) == before
    assert ConfigurationChange.objects.count() == 0


@pytest.mark.slow
def test_the_translation_page_saves_every_text_after_the_first_report(admin_client, responded):
    offer(responded)
    names = list(boxes(parse(admin_client.get(translate_url(responded, "es")).content.decode())))
    assert len(names) == 3 + 4 + 3 + 4  # the survey's three texts, four questions, the options of questions 3 and 4
    response = admin_client.post(translate_url(responded, "es"), {name: f"es {name}" for name in names})
    assert response.status_code == 302  # after the first report too: text only
    assert QuestionTranslation.objects.count() == 4 and OptionTranslation.objects.count() == 7


def test_a_cleared_box_removes_its_translation(admin_client, survey):
    builder.translate(survey, SPANISH)
    page = parse(admin_client.get(translate_url(survey, "es")).content.decode())
    data = boxes(page)
    data[f"question-{question(survey, 1).pk}"] = "  "
    admin_client.post(translate_url(survey, "es"), data)
    assert not QuestionTranslation.objects.filter(question=question(survey, 1)).exists()
    assert QuestionTranslation.objects.count() == 3


@pytest.mark.parametrize("language", ["en", "de", "xx"])
def test_the_survey_own_language_and_one_the_app_lacks_have_no_translation_page(admin_client, survey, language):
    assert admin_client.get(translate_url(survey, language)).status_code == 404
    assert admin_client.post(translate_url(survey, language), {"title": "x"}).status_code == 404
    assert translations_state(survey) == ([], [], [])


def test_another_researcher_cannot_translate(client, other_researcher, survey):
    client.force_login(other_researcher)  # not staff: the admin sends them to its sign-in page
    for response in (client.get(translate_url(survey, "es")), client.post(translate_url(survey, "es"),
                                                                           spanish_data(survey))):
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert translations_state(survey) == ([], [], [])


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
    assert [f.attrs["name"] for f in page.find_all("textarea")] == ["description", "consent"] + [
        f"question-{q.pk}" for q in survey.ordered_questions()]
    inline = parse(admin_client.get(survey_url(survey)).content.decode())
    assert inline.find("textarea", name="questions-0-text").attrs["rows"] == "2"


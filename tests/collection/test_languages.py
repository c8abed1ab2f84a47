"""A survey in several languages: the respondent's page and the definition API in the language
asked for (?lang=), else the browser's, else the survey's own; texts only, so the mechanisms, the
version and what is sent and stored are the same in every language; the Open action refuses a
language with a missing text."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from surveys.collection import builder, languages, lifecycle, plan, submission, wording
from surveys.collection.builder import TranslationSpec
from surveys.collection.models import OptionTranslation, QuestionTranslation, Response, Survey, SurveyTranslation
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.factories import valid_payload

SPANISH = TranslationSpec("es", "Salud", ["¿Copió?", "¿Condujo ebrio?", "¿Drogas?", "¿Fiesta?"],
                          {3: ["Nunca", "A veces", "A menudo"], 4: ["Á", "B́", "Ć", "D́"]}, consent="Acepto o no.")
ARABIC = TranslationSpec("ar", "الصحة", ["غش؟", "قاد؟", "مخدرات؟", "حفلة؟"],
                         {3: ["أبدًا", "أحيانًا", "غالبًا"], 4: ["أ", "ب", "ج", "د"]})


@pytest.fixture
def multilingual(survey):
    builder.translate(survey, SPANISH)
    builder.translate(survey, ARABIC)
    return survey


def definition(client, survey, browser=None, **query):
    headers = {} if browser is None else {"HTTP_ACCEPT_LANGUAGE": browser}
    return client.get(reverse("collection:api-survey", args=[survey.slug]), query, **headers)


def page(client, survey, **headers):
    return client.get(reverse("collection:respond", args=[survey.slug]) + headers.pop("query", ""), **headers)


def test_the_definition_is_in_the_language_asked_for_with_the_same_mechanisms_and_version(client, multilingual):
    english, spanish = definition(client, multilingual).json(), definition(client, multilingual, lang="es").json()
    assert (english["language"], spanish["language"]) == ("en", "es")
    assert english["languages"] == spanish["languages"] == ["en", "ar", "es"]
    assert spanish["title"] == "Salud" and spanish["consent"] == "Acepto o no."
    assert [q["text"] for q in spanish["questions"]] == list(SPANISH.questions)
    assert [q["options"] for q in spanish["questions"]] == [
        ["No", "Sí"], ["No", "Sí"], ["Nunca", "A veces", "A menudo"], ["Á", "B́", "Ć", "D́"]]
    assert untranslated(english) == untranslated(spanish) and english["version"] == spanish["version"]


def untranslated(found):
    """The questions less their words: the texts, the labels and the deniability's explanation."""
    return [{**{k: v for k, v in q.items() if k not in ("text", "options")},
             "deniability": {k: v for k, v in q["deniability"].items() if k != "text"}} for q in found["questions"]]


def test_the_definition_speaks_the_asked_language_alone_whatever_the_browsers(client, multilingual):
    # Spanish asked for by a French browser: the explanations in Spanish too, never in French.
    asked = definition(client, multilingual, browser="fr", lang="es")
    assert (asked.headers["Content-Language"], asked.json()) == ("es", definition(client, multilingual, "es").json())
    assert asked.json()["questions"][0]["deniability"]["text"] == (
        "Ver lo que envía su navegador cambia las probabilidades que cualquiera asigne entre dos respuestas como mucho "
        "3,00 veces; si ambas eran igual de probables de antemano, una conjetura de su respuesta a partir de ello "
        "acierta como mucho el 75% de las veces.")


def test_the_definition_takes_the_browsers_language_if_offered_else_the_surveys_own(client, multilingual):
    spanish, french = definition(client, multilingual, "es-ES,es;q=0.9"), definition(client, multilingual, "fr")
    assert (spanish.headers["Content-Language"], spanish.json()) == ("es", definition(client, multilingual,
                                                                                       lang="es").json())
    # Not offered: the survey's own language, its explanations in English rather than French.
    assert (french.headers["Content-Language"], french.json()) == ("en", definition(client, multilingual).json())
    assert "Accept-Language" in french.headers["Vary"]


def test_the_definition_in_arabic_explains_in_arabic(client, multilingual):
    arabic = definition(client, multilingual, browser="es", lang="ar")
    assert arabic.headers["Content-Language"] == "ar"
    with translation.override("ar"):
        explained = [wording.deniability_text(q.mechanism.sampler()) for q in plan.of(multilingual).questions]
    assert [q["deniability"]["text"] for q in arabic.json()["questions"]] == explained
    assert [q["options"] for q in arabic.json()["questions"]][:2] == [["لا", "نعم"]] * 2


def test_the_definition_refuses_a_language_the_survey_does_not_offer(client, multilingual):
    response = definition(client, multilingual, lang="fr")
    assert response.status_code == 400
    assert response.json() == {"error": {"code": "invalid", "field": "lang",
                                         "reason": "this survey is not offered in that language"}}


def test_the_page_takes_the_language_asked_for_then_the_browsers_then_its_own(client, multilingual):
    asked = page(client, multilingual, query="?lang=ar", HTTP_ACCEPT_LANGUAGE="es")
    browser = page(client, multilingual, HTTP_ACCEPT_LANGUAGE="es-ES,es;q=0.9")
    unknown = page(client, multilingual, query="?lang=xx", HTTP_ACCEPT_LANGUAGE="fr")
    assert [r.headers["Content-Language"] for r in (asked, browser, unknown)] == ["ar", "es", "en"]
    arabic = parse(asked.content.decode())
    wrapper = arabic.find("div", **{"class": "survey-page"})
    assert (wrapper.attrs["lang"], wrapper.attrs["dir"]) == ("ar", "rtl")
    assert arabic.find("h1").text == "الصحة"
    assert [legend.text for legend in arabic.find_all("legend")] == [
        f"{n}. {text}" for n, text in enumerate(ARABIC.questions, start=1)]
    spanish = parse(browser.content.decode())
    assert [label.text for label in spanish.find_all("fieldset")[2].find_all("label")] == [
        "Nunca", "A veces", "A menudo"]
    assert spanish.find("div", **{"class": "consent-text"}).text == "Acepto o no."
    assert parse(unknown.content.decode()).find("h1").text == "Health"


def test_the_picker_names_each_language_in_itself_and_marks_the_current_one(client, multilingual):
    found = parse(page(client, multilingual, query="?lang=es").content.decode()).find("nav").find_all("a")
    assert [(a.attrs["href"], a.attrs["lang"], a.attrs["dir"], a.text, a.attrs.get("aria-current")) for a in found] == [
        ("?lang=en", "en", "ltr", "English", None), ("?lang=ar", "ar", "rtl", "العربيّة", None),
        ("?lang=es", "es", "ltr", "Español", "page")]  # a label: capitalised, though Django's name is "español"


def test_a_survey_in_one_language_has_no_picker_and_no_consent_section(client, survey):
    found = parse(page(client, survey).content.decode())
    assert found.find("nav") is None and found.by_id("consent") is None
    assert "hidden" not in found.by_id("survey").attrs


def test_the_questions_are_hidden_behind_the_consent_text(client, multilingual):
    found = parse(page(client, multilingual, query="?lang=es").content.decode())
    assert "hidden" in found.by_id("survey").attrs and "disabled" in found.by_id("agree").attrs
    ids = [element.attrs.get("id") for element in found.iter()]
    assert ids.index("consent") < ids.index("survey")  # the consent comes first


def test_the_open_action_names_every_missing_translation(survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT, consent="Do you agree?")
    survey.refresh_from_db()
    builder.translate(survey, SPANISH)
    QuestionTranslation.objects.filter(question=question(survey, 2), language="es").delete()
    OptionTranslation.objects.filter(option__question=question(survey, 3), option__order=1, language="es").delete()
    SurveyTranslation.objects.filter(language="es").update(consent="")
    with pytest.raises(ValidationError) as refused:
        lifecycle.open_survey(survey)
    assert refused.value.messages == [
        "cannot open: no Spanish (es) text for the consent text, question 2, question 3 option 2 “Sometimes”"]
    survey.refresh_from_db()
    assert survey.status == Survey.Status.DRAFT


@pytest.mark.parametrize("interface,refusal", [
    ("en", "English (en) cannot be a translation of this survey"),
    # from the catalogs merged with /work/notes/tr-words.json: the name no longer starts the sentence
    ("es", "El idioma inglés (en) no puede ser una traducción de esta encuesta"),
    ("fr", "La langue anglais (en) ne peut pas être une traduction de cette enquête"),
])
def test_a_translation_into_the_surveys_own_language_is_named_as_a_sentence_writes_it(survey, interface, refusal):
    SurveyTranslation.objects.create(survey=survey, language="en", title="Health")
    with translation.override(interface):
        assert languages.missing(survey) == [refusal]


def test_a_complete_translation_opens(survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    survey.refresh_from_db()
    builder.translate(survey, ARABIC)
    lifecycle.open_survey(survey)
    assert survey.status == Survey.Status.OPEN


def test_a_translation_added_after_the_first_report_changes_no_version(responded):
    before = plan.of(responded).version
    builder.translate(responded, SPANISH)
    assert plan.of(responded).version == before
    assert submission.submit(responded, valid_payload(responded)).created  # reports keep arriving, same version
    assert set(Response.objects.values_list("mechanism_version", flat=True)) == {before}


def test_a_submission_that_names_a_language_is_refused_and_nothing_stored(client, multilingual):
    payload = {**valid_payload(multilingual), "lang": "es"}
    response = client.post(reverse("collection:api-responses", args=[multilingual.slug]), payload,
                           content_type="application/json")
    assert response.status_code == 400 and Response.objects.count() == 0


def test_stored_rows_have_no_column_for_a_language_or_an_agreement():
    from surveys.collection.models import Report
    columns = {field.column for model in (Response, Report) for field in model._meta.concrete_fields}
    assert not any(word in column for column in columns for word in ("lang", "consent", "agree"))


@pytest.mark.parametrize("browser,notice", [
    ("ar", ("ar", "rtl", "هذا الاستبيان غير متاح باللغة العربية: يُعرض باللغة الإنجليزية. "
                         "اللغات المتاحة: الإنجليزية, الإسبانية.")),
    # French and Spanish write a language's name in lower case inside a sentence
    ("fr-FR,fr;q=0.9", ("fr", "ltr", "Cette enquête n’est pas disponible en français : elle est affichée en anglais. "
                                     "Elle est proposée en : anglais, espagnol.")),
])
def test_a_browser_whose_language_the_survey_lacks_is_told_so_in_that_language(client, survey, browser, notice):
    builder.translate(survey, SPANISH)
    found = parse(page(client, survey, HTTP_ACCEPT_LANGUAGE=browser).content.decode())
    shown = found.find("p", **{"class": "notice missing-language"})
    assert (shown.attrs["lang"], shown.attrs["dir"], shown.text) == notice
    assert found.find("h1").text == "Health"  # shown in the survey's own language
    assert [a.attrs["href"] for a in found.find("nav").find_all("a")] == ["?lang=en", "?lang=es"]


def test_a_spanish_browser_is_told_the_languages_names_in_lower_case_as_spanish_writes_them(client, survey):
    builder.translate(survey, ARABIC)
    found = parse(page(client, survey, HTTP_ACCEPT_LANGUAGE="es").content.decode())
    assert found.find("p", **{"class": "notice missing-language"}).text == (
        "Esta encuesta no está disponible en español: se muestra en inglés. Se ofrece en: inglés, árabe.")


@pytest.mark.parametrize("browser,query", [("es", ""), ("en", ""), ("de", ""), ("ar", "?lang=en")])
def test_no_notice_when_the_browsers_language_is_met_unknown_here_or_a_language_was_chosen(client, survey, browser,
                                                                                           query):
    builder.translate(survey, SPANISH)
    found = parse(page(client, survey, query=query, HTTP_ACCEPT_LANGUAGE=browser).content.decode())
    assert found.find("p", **{"class": "notice missing-language"}) is None

"""The interface in the browser's language (Accept-Language, LocaleMiddleware): English without one,
Spanish, French and Arabic when asked; figures with the language's decimal separator (rounded as in
English: only the separator changes), right to left in Arabic. The survey offers these languages too:
the page's interface and its survey texts are in one language."""

import json

import pytest
from django.urls import reverse

from surveys.collection import builder
from surveys.collection.builder import TranslationSpec
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses
from tests.collection.pages import parse
from tests.collection.test_languages import ARABIC, SPANISH
from tests.factories import valid_payload

FRENCH = TranslationSpec("fr", "Santé", ["Copié ?", "Conduit ivre ?", "Drogues ?", "Fête ?"],
                         {3: ["Jamais", "Parfois", "Souvent"], 4: ["A", "B", "C", "D"]}, consent="J'accepte ou non.")


@pytest.fixture
def survey(survey):
    """The survey in Spanish, French and Arabic too: a page speaks the browser's language when the survey does."""
    for spec in (SPANISH, FRENCH, ARABIC):
        builder.translate(survey, spec)
    return survey


PAGE = "/s/health/"
ES = {"HTTP_ACCEPT_LANGUAGE": "es"}


def html_attrs(response) -> dict[str, str]:
    return parse(response.content).find("html").attrs


def test_without_accept_language_the_page_is_english_left_to_right(client, survey):
    response = client.get(PAGE)
    assert html_attrs(response) == {"lang": "en", "dir": "ltr"}
    assert "Randomize and send" in response.content.decode()


@pytest.mark.parametrize(("header", "lang", "direction", "button"), [
    ("es-ES,es;q=0.9,en;q=0.5", "es", "ltr", "Aleatorizar y enviar"),
    ("fr-CA,fr;q=0.8", "fr", "ltr", "Randomiser et envoyer"),
    ("ar-EG", "ar", "rtl", "اجعلها عشوائية وأرسلها"),
    ("de-DE,de;q=0.9", "en", "ltr", "Randomize and send"),  # not offered: English
])
def test_the_respondent_page_speaks_the_browser_language(client, survey, header, lang, direction, button):
    response = client.get(PAGE, HTTP_ACCEPT_LANGUAGE=header)
    assert html_attrs(response) == {"lang": lang, "dir": direction}
    assert parse(response.content).by_id("send").text == button
    assert "Accept-Language" in response.headers["Vary"]


def test_the_spanish_page_gives_its_odds_receipt_and_script_words_in_spanish(client, survey):
    page = parse(client.get(PAGE, **ES).content)
    notes = [page.by_id(f"note-{q.pk}").text for q in survey.ordered_questions()]
    # q = .5 and ln 3: at most 3 to 1; epsilon 1: e = 2.718... rounded UP to 2.72, "2,72" in Spanish
    odds = ["3", "3", "2,72", "2,72"]
    coin = (" Su navegador envía su respuesta real con probabilidad 0,5; si no, una moneda equilibrada responde por "
            "usted: sí con probabilidad 0,25, no con probabilidad 0,25.")  # q-RR's exact chances (question 1)
    assert notes == [f"Su respuesta sigue siendo negable: las probabilidades que cualquiera asigne a su respuesta "
                     f"verdadera cambian como mucho {o} a 1.{coin if j == 0 else ''}" for j, o in enumerate(odds)]
    first = page.find("li", **{"data-question": str(survey.ordered_questions()[0].pk)})
    chance = first.find("span", **{"class": "receipt-chance"}).text
    assert chance == "Puede ser o no su respuesta real; unos 3 de cada 4 informes lo son."
    assert [label.text for label in page.find("fieldset").find_all("label")] == ["No", "Sí"]
    client_data = json.loads(page.by_id("survey-data").raw_text)
    assert client_data["text"]["not_sent"] == "No enviado: {reason}."
    assert client_data["decimalSeparator"] == ","  # the browser's figures as the server's: "3,198"
    assert client_data["questions"][0]["options"] == ["No", "Sí"]  # the receipt names the report in Spanish
    assert client_data["questions"][2]["options"] == ["Nunca", "A veces", "A menudo"]  # the survey's Spanish words


def test_the_definition_api_explains_each_question_in_the_asked_language(client, survey):
    english = client.get(f"/api/v1/surveys/{survey.slug}/").json()["questions"][0]["deniability"]["text"]
    spanish = client.get(f"/api/v1/surveys/{survey.slug}/", **ES).json()["questions"][0]["deniability"]["text"]
    assert "at most 3.00 times" in english and "at most 75% of the time" in english
    assert spanish == ("Ver lo que envía su navegador cambia las probabilidades que cualquiera asigne entre dos "
                       "respuestas como mucho 3,00 veces; si ambas eran igual de probables de antemano, una "
                       "conjetura de su respuesta a partir de ello acierta como mucho el 75% de las veces.")


def test_a_refusal_the_page_shows_is_in_spanish(client, survey):
    payload = {**valid_payload(survey), "version": "stale"}
    response = client.post(f"/api/v1/surveys/{survey.slug}/responses/", json.dumps(payload),
                           content_type="application/json", **ES)
    assert response.status_code == 409
    assert response.json() == {"error": {"code": "version_changed", "field": "version",
                                         "reason": "la encuesta ha cambiado desde que se "
                                                   "cargó este formulario; vuelva a cargarlo"}}
    english = client.post(f"/api/v1/surveys/{survey.slug}/responses/", json.dumps(payload),
                          content_type="application/json")
    assert english.json()["error"]["reason"] == "the survey changed since this form was loaded; reload it"


def test_closed_and_missing_pages_are_in_spanish(client, survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    closed = parse(client.get(PAGE, **ES).content)
    assert closed.find("p", **{"class": "notice"}).text == ("Esta encuesta está cerrada y ya no admite respuestas. "
                                                 "Gracias por su interés.")
    missing = client.get("/s/no-such-survey/", **ES)
    assert missing.status_code == 404 and parse(missing.content).find("h1").text == "No encontrado"


def test_the_dashboard_is_in_spanish_with_decimal_commas_but_svg_coordinates_keep_their_point(client, owner, survey):
    add_responses(survey, 150, seed=11)
    client.force_login(owner)
    url = reverse("aggregation:dashboard", args=[survey.slug]) + "?margin=0.5"
    english = parse(client.get(url).content)
    spanish_html = client.get(url, **ES).content.decode()
    spanish = parse(spanish_html)
    assert spanish.find("nav", **{"class": "researcher"}).find("a").text == "Todos los resultados"
    assert "Estimaciones con sesgo corregido" in spanish_html
    # The same figures, with a comma: every English "12.3%" cell reads "12,3%".
    cells = [td.text for td in english.find_all("td", **{"class": "num"}) if "%" in td.text]
    assert cells and [td.text for td in spanish.find_all("td", **{"class": "num"}) if "%" in td.text] == [
        cell.replace(".", ",") for cell in cells]
    coordinates = [rect.attrs["width"] for rect in spanish.find_all("rect", **{"class": "bar"})]
    assert coordinates == [rect.attrs["width"] for rect in english.find_all("rect", **{"class": "bar"})]
    assert all("," not in c for c in coordinates) and any("." in c for c in coordinates)
    kept = spanish.find("input", name="margin")
    assert kept.attrs["value"] == "0.5"  # a number input's value is never localized

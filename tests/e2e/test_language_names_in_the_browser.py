"""Words a person reads, in Chromium: a respondent whose language the survey lacks reads the languages' names
in lower case where French and Spanish write them so ("no está disponible en español: se muestra en inglés";
they were capitalised mid-sentence), and a researcher whose model is refused reads the form's label of the
parameter, not its name in the query ("Sin modelo (reference)"), and what each CSV's rows are."""

import pytest

from surveys.collection import builder
from tests.collection.test_languages import ARABIC
from tests.e2e.conftest import axe_violations
from tests.e2e.test_accessibility import log_in

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("locale,notice", [
    ("es", "Esta encuesta no está disponible en español: se muestra en inglés. Se ofrece en: inglés, árabe."),
    ("fr", "Cette enquête n’est pas disponible en français : elle est affichée en anglais. "
           "Elle est proposée en : anglais, arabe."),
])
def test_a_respondent_reads_the_languages_names_as_their_language_writes_them(live_server, page_in_locale, survey,
                                                                              locale, notice):
    builder.translate(survey, ARABIC)
    page = page_in_locale(locale)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert page.locator("p.missing-language").inner_text() == notice
    assert axe_violations(page) == []


@pytest.mark.parametrize("locale,refused,estimates", [
    ("en", "No model. Reference option: ", "one row per question and option, and one for a mean or a mean score,"),
    # Spanish from the catalogs merged with /work/notes/tr-words.json
    ("es", "Sin modelo. Opción de referencia: ",
     "una fila por pregunta y opción, y otra por media o puntuación media,"),
])
def test_a_researcher_reads_the_refused_parameters_label_and_what_the_estimates_rows_are(
        live_server, page_in_locale, survey, owner, locale, refused, estimates):
    page = page_in_locale(locale)
    log_in(page, f"{live_server.url}/accounts/login/", owner.username, f"/results/{survey.slug}/")
    page.goto(f"{live_server.url}/results/{survey.slug}/?outcome=1&reference=twelve")
    assert page.locator("section.models p.notice[role=alert]").inner_text().startswith(refused)
    assert estimates in page.locator("section.exports li").first.inner_text()

"""The synthetic rows' quality warnings in the reader's language (surveys.aggregation.synthetic.words): ldp gives
codes with values, the app a sentence for each."""

import html
import re

import pytest
from django.urls import reverse
from django.utils import translation

from ldp.synthetic.quality import ENGLISH, QualityWarning
from surveys.aggregation.synthetic import words as synthetic_words
from surveys.aggregation.synthetic.words import SENTENCES, sentence

EXAMPLES = {"not_compared": {"names": "q4, q5"}, "too_few": {"name": "q1", "n": 1500, "needed": 2401, "margin": 0.05},
            "never_together": {"a": "q1", "b": "q2"},
            "pair_too_few": {"a": "q1", "b": "q2", "n": 1500, "needed": 12000, "margin": 0.05}}


def test_every_code_ldp_can_give_has_a_sentence_in_the_app():
    assert set(SENTENCES) == set(ENGLISH) == set(EXAMPLES)


@pytest.mark.parametrize("code", sorted(ENGLISH))
def test_each_sentence_names_the_warnings_values(code):
    said = sentence(QualityWarning(code, EXAMPLES[code]).to_dict())
    for value in EXAMPLES[code].values():
        shown = f"{value:,}" if isinstance(value, int) else str(value)
        assert shown in said, said
    assert said != QualityWarning(code, EXAMPLES[code]).text  # the app's sentence, not ldp's English


def test_a_code_it_does_not_know_or_a_plain_sentence_is_said_as_stored():
    assert sentence({"code": "from_a_newer_version", "values": {}, "text": "Something new."}) == "Something new."
    assert sentence("a file made before codes") == "a file made before codes"


def test_it_is_said_in_the_readers_language():
    warning = QualityWarning("never_together", {"a": "q1", "b": "q2"}).to_dict()
    with translation.override("es"):
        spanish = sentence(warning)
    assert spanish == ("q1 y q2 nunca se respondieron juntas: cómo van juntas en estas filas es una conjetura del "
                       "modelo.")


def test_the_spanish_page_shows_the_files_warnings_in_spanish(client, answered_kinds):
    assert client.get(reverse("aggregation:export-synthetic-csv", args=[answered_kinds.slug])).status_code == 200
    page = client.get(reverse("aggregation:dashboard", args=[answered_kinds.slug]),
                      HTTP_ACCEPT_LANGUAGE="es").content.decode()
    section = re.search(r'aria-labelledby="synthetic-heading">.*?</section>', page, re.S).group(0)
    said = [html.unescape(w) for w in re.findall(r"<li>([^<]*)</li>", section.split("<details>")[1])]
    assert said and all("respuestas" in w for w in said if not w.startswith("No ")), said
    assert any(re.fullmatch(r"q\d+: 250 respuestas, menos de las [\d,]+ que el planificador necesita para ±0\.05 "
                            r"al 95%\.", w) for w in said), said
    with translation.override("es"):
        assert synthetic_words.sentence({"code": "too_few", "values": EXAMPLES["too_few"]}).startswith(
            "q1: 1,500 respuestas")

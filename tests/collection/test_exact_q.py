"""q typed as an exact fraction in the admin ("2/3": forced response with 1/6 forced yes and 1/6 forced no) is
stored exactly and reaches, exactly, the sampler the browser is sent, the definition API, the codebook, the admin
page, the respondent page and the history; a q the browser's integers cannot carry is refused on its field."""

import json
from fractions import Fraction

import pytest
from django.db import connection
from django.urls import reverse

from surveys.collection import plan, submission
from surveys.collection.models import Question
from surveys.history.models import ConfigurationChange
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.collection.test_admin import current_form, messages_on, question_url, set_question, survey_url
from tests.collection.test_admin_survey_page import FIGURES
from tests.factories import valid_payload


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def stored_text(pk):
    """The q column as the database holds it."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT q FROM {Question._meta.db_table} WHERE id = %s", [pk])
        return cursor.fetchone()[0]


def type_q(admin_client, survey, typed):
    data = set_question(current_form(admin_client, survey_url(survey), "survey_form"), question(survey, 1), q=typed)
    return admin_client.post(survey_url(survey), data)


@pytest.fixture
def two_thirds(admin_client, survey):
    response = type_q(admin_client, survey, "2/3")
    assert response.status_code == 302, messages_on(response) or response.content.decode()[:3000]
    return question(survey, 1)


def test_two_thirds_typed_in_the_admin_is_stored_exactly(two_thirds):
    assert two_thirds.q == Fraction(2, 3)
    assert stored_text(two_thirds.pk) == "2/3"


def test_the_browser_is_sent_integers_that_make_yes_given_yes_exactly_five_sixths(client, survey, two_thirds):
    described = client.get(reverse("collection:api-survey", args=[survey.slug])).json()
    mechanism = next(q for q in described["questions"] if q["order"] == 1)["mechanism"]
    assert mechanism["sampler"] == {"kind": "grr", "k": 2, "modulus": 6, "keep": 5, "other": 1}
    assert {key: mechanism[key] for key in ("parameters", "q_exact", "q_decimal", "p_exact", "q_other_exact")} == {
        "parameters": {"mechanism": "qrr", "q": "2/3"}, "q_exact": "2/3", "q_decimal": 2 / 3, "p_exact": "5/6",
        "q_other_exact": "1/6"}
    assert described["version"] == plan.of(survey).version


def test_the_codebook_says_q_exactly_and_as_a_decimal(client, owner, survey, two_thirds):
    client.force_login(owner)
    response = client.get(reverse("aggregation:export-codebook", args=[survey.slug]))
    body = b"".join(response.streaming_content) if response.streaming else response.content
    mechanism = json.loads(body)["questions"][0]["mechanism"]
    assert (mechanism["parameters"], mechanism["q_exact"], mechanism["q_decimal"], mechanism["p_exact"]) == (
        {"mechanism": "qrr", "q": "2/3"}, "2/3", 2 / 3, "5/6")


def test_the_admin_shows_two_thirds_as_typed_and_its_decimal(admin_client, survey, two_thirds):
    page = parse(admin_client.get(survey_url(survey)).content)
    (box,) = [element for element in page.find_all("input") if element.attrs.get("name", "").endswith("-q")
              and element.attrs.get("value") == "2/3"]
    assert box.attrs["name"] == f"questions-{0}-q"
    text = parse(admin_client.get(question_url(two_thirds)).content).text
    assert "(q = 2/3 ≈ 0.666667, p = 5/6)" in text


def test_once_frozen_the_admin_still_shows_two_thirds_and_its_decimal(admin_client, survey, two_thirds):
    submission.submit(survey, valid_payload(survey))
    text = parse(admin_client.get(survey_url(survey)).content).text
    assert "Settings: Mechanism: q-randomized response (yes/no)Q: 2/3 ≈ 0.666667 What it means" in text


def test_the_figures_endpoint_takes_a_fraction(admin_client):
    figures = admin_client.get(f"{FIGURES}?mechanism=qrr&q=2/3").json()
    assert figures["q_exact"] == "2/3"
    assert "(q = 2/3 ≈ 0.666667, p = 5/6)" in figures["summary"]
    assert figures["loss"] == {"ratio": "5", "rational": "0"}  # ln 5: P(yes | yes) / P(yes | no) = (5/6) / (1/6)


def test_the_respondent_page_says_the_chances_exactly(client, survey, two_thirds):
    page = parse(client.get(reverse("collection:respond", args=[survey.slug])).content)
    note = page.by_id(f"note-{two_thirds.pk}").text
    assert note.endswith("Your browser sends your real answer with probability 2/3 (≈ 0.666667); otherwise a fair "
                         "coin answers for you: yes with probability 1/6 (≈ 0.166667), no with probability 1/6 "
                         "(≈ 0.166667).")


def test_the_history_records_q_as_typed(admin_client, survey, two_thirds):
    (change,) = ConfigurationChange.objects.filter(survey_id=survey.pk)
    assert [(row["before"], row["after"]) for row in change.changes] == [("0.5", "2/3")]


@pytest.mark.parametrize("typed, words", [
    ("1/5000000001", "cannot be sampled exactly"),  # (1 + q)/2 needs a denominator above 2^32
    ("3/2", "strictly between 0 and 1"),  # numerator and denominator swapped
    ("two thirds", "Enter q as a decimal (0.5) or a fraction (2/3)."),
])
def test_a_q_that_cannot_be_sampled_as_typed_is_refused_on_its_field_and_nothing_is_saved(admin_client, survey,
                                                                                         typed, words):
    before = stored_text(question(survey, 1).pk)
    response = type_q(admin_client, survey, typed)
    assert response.status_code == 200
    (formset,) = [inline.formset for inline in response.context["inline_admin_formsets"]
                  if inline.formset.prefix == "questions"]
    errors = [dict(errors) for errors in formset.errors if errors]
    assert [list(found) for found in errors] == [["q"]]
    assert words in " ".join(errors[0]["q"])
    assert stored_text(question(survey, 1).pk) == before == "0.5"

"""GET /api/v1/surveys/<slug>/?format=definition: the survey as an XLSForm's sheets (the JSON export_survey
writes), for staff only, drafts too; the public definition names each question by its key (its name, else q<order>)."""

import pytest
from django.urls import reverse

from surveys.collection.xlsform import importing, writing
from tests.collection.xlsforms import KEPT, QUESTIONS, SURVEY_HEADER, described, hand_form
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def url(slug: str) -> str:
    return reverse("collection:api-survey", args=[slug]) + "?format=definition"


def test_staff_get_a_drafts_sheets_which_import_as_the_same_survey(client):
    draft = importing.import_form(hand_form()).survey
    client.force_login(make_user("staff", is_staff=True))

    response = client.get(url(draft.slug))

    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json() == writing.sheets(draft)
    assert described(importing.import_form(response.json(), slug="again").survey) == described(draft)


@pytest.mark.parametrize("who", ["anonymous", "owner"])
def test_anyone_else_gets_404_as_for_an_unknown_slug(client, survey, owner, who):
    if who == "owner":
        client.force_login(owner)

    assert client.get(url(survey.slug)).status_code == 404


def test_the_public_definition_names_each_question_by_its_key(client):
    rows = [SURVEY_HEADER, *QUESTIONS]
    rows[1] = [rows[1][0], "q1", *rows[1][2:]]  # its own default key: stored blank
    survey = importing.import_form(hand_form(survey=rows, settings=KEPT), open_it=True).survey

    found = client.get(reverse("collection:api-survey", args=[survey.slug])).json()

    assert survey.ordered_questions().first().name == ""
    assert [q["name"] for q in found["questions"]] == ["q1", *(q[1] for q in QUESTIONS[1:])]

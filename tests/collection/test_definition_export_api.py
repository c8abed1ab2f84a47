"""GET /api/v1/surveys/<slug>/?format=definition: the survey as an XLSForm's sheets (the JSON export_survey
writes), for staff only, drafts too; the public definition names each question."""

import pytest
from django.urls import reverse

from surveys.collection.xlsform import importing, writing
from tests.collection.xlsforms import described, hand_form
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


def test_the_public_definition_names_each_question(client):
    survey = importing.import_form(hand_form(), open_it=True).survey

    found = client.get(reverse("collection:api-survey", args=[survey.slug])).json()

    assert [q["name"] for q in found["questions"]] == list(
        survey.ordered_questions().values_list("name", flat=True))
    assert found["questions"][0]["name"] == "drugs"

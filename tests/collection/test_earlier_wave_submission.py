"""A submission to a wave of a series may say whether its browser answered an earlier wave (`earlier_wave`):
stored as given, one bit that links nothing; refused where it makes no sense, with nothing stored."""

import json

import pytest

from surveys.collection import waves
from surveys.collection.models import Response, Survey
from tests.factories import valid_payload


def post(client, survey, body):
    return client.post(f"/api/v1/surveys/{survey.slug}/responses/", data=json.dumps(body),
                       content_type="application/json")


@pytest.fixture
def wave(survey):
    second = waves.run_again(survey)
    Survey.objects.filter(pk=second.pk).update(status=Survey.Status.OPEN)
    second.refresh_from_db()
    return second


@pytest.mark.parametrize("said, stored", [(True, True), (False, False), (None, False)])
def test_it_stores_what_the_browser_says_and_false_when_it_says_nothing(client, wave, said, stored):
    body = valid_payload(wave) | ({} if said is None else {"earlier_wave": said})
    assert post(client, wave, body).status_code == 201
    assert list(Response.objects.filter(survey=wave).values_list("earlier_wave", flat=True)) == [stored]


@pytest.mark.parametrize("value", [1, "true", None, [True]])
def test_it_refuses_anything_but_true_or_false_and_stores_nothing(client, wave, value):
    response = post(client, wave, valid_payload(wave) | {"earlier_wave": value})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "earlier_wave"
    assert not Response.objects.exists()


def test_a_survey_in_no_series_refuses_it(client, survey):
    response = post(client, survey, valid_payload(survey) | {"earlier_wave": False})
    assert response.status_code == 400
    assert response.json()["error"] == {"code": "invalid", "field": "earlier_wave",
                                        "reason": "this survey is no wave of a series"}
    assert not Response.objects.exists()


def test_a_retry_must_say_the_same(client, wave):
    body = valid_payload(wave) | {"earlier_wave": True}
    first = post(client, wave, body)
    assert post(client, wave, body).json() == first.json()  # the same: the first receipt
    conflict = post(client, wave, body | {"earlier_wave": False})
    assert conflict.status_code == 409 and conflict.json()["error"]["field"] == "key"
    assert list(Response.objects.values_list("earlier_wave", flat=True)) == [True]

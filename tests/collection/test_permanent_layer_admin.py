"""A question's permanent layer on the survey's admin page: typed with the question, checked on its field, shown
read-only once the survey has reports."""

from decimal import Decimal

import pytest

from surveys.collection import submission, waves
from surveys.collection.models import Question, Survey
from tests.collection.test_admin import current_form, messages_on, set_question, survey_url
from tests.factories import valid_payload


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def wave(survey):
    return waves.run_again(survey)


def question_of(survey, order):
    return Question.objects.get(survey=survey, order=order)


def test_the_permanent_layers_are_typed_with_their_questions(admin_client, wave):
    data = current_form(admin_client, survey_url(wave), "survey_form")
    set_question(data, question_of(wave, 1), permanent_q="0.9")
    set_question(data, question_of(wave, 3), permanent_epsilon="2.5")
    response = admin_client.post(survey_url(wave), data)
    assert response.status_code == 302, messages_on(response) or response.content.decode()[:3000]
    assert list(wave.questions.order_by("order").values_list("permanent_q", "permanent_epsilon")) == [
        (Decimal("0.9"), None), (None, 1.0986122886681098), (None, 2.5), (None, 1.0)]


@pytest.mark.parametrize("order, fields, field", [
    (1, {"permanent_q": "", "permanent_epsilon": "1.0"}, "permanent_epsilon"),  # qrr: by q
    (3, {"permanent_q": "0.5", "permanent_epsilon": ""}, "permanent_q"),  # krr: by epsilon
    (1, {"permanent_q": "1.5"}, "permanent_q"),  # no such q
])
def test_a_permanent_layer_that_does_not_fit_is_refused_on_its_field_and_nothing_is_saved(admin_client, wave, order,
                                                                                           fields, field):
    before = list(wave.questions.order_by("order").values_list("permanent_q", "permanent_epsilon"))
    data = current_form(admin_client, survey_url(wave), "survey_form")
    set_question(data, question_of(wave, order), **fields)
    response = admin_client.post(survey_url(wave), data)
    assert response.status_code == 200
    (formset,) = [inline.formset for inline in response.context["inline_admin_formsets"]
                  if inline.formset.prefix == "questions"]
    assert [list(errors) for errors in formset.errors if errors] == [[field]]
    assert list(wave.questions.order_by("order").values_list("permanent_q", "permanent_epsilon")) == before


def test_a_wave_with_reports_shows_its_permanent_layers_read_only(admin_client, wave):
    Question.objects.filter(survey=wave, order=1).update(permanent_q=Decimal("0.875"))
    Survey.objects.filter(pk=wave.pk).update(status=Survey.Status.OPEN)
    wave.refresh_from_db()
    submission.submit(wave, valid_payload(wave))
    page = admin_client.get(survey_url(wave)).content.decode()
    assert 'name="questions-0-permanent_q"' not in page
    assert "0.875" in page

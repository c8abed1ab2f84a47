"""A question with a population margin in the admin: switching it from "direct" to a randomized mechanism is
refused, on the survey page and on the question's own page, with a message naming the margin (the weights would
otherwise be raked to randomized reports); so is changing its options, whose shares are kept by option."""

import pytest

from surveys.collection.models import Question
from tests.aggregation.weighting_support import enter
from tests.collection.helpers import question
from tests.collection.test_admin import QUESTIONS, current_form, set_question, survey_url
from tests.collection.test_exclusive_options_admin import field_error

SWITCH = ("Question 2 has a population margin (Census 2021): the survey's weights are raked to its answers as given, "
          "so it must stay sent as given. A researcher removes the margin on the results page first.")
OPTIONS = ("Question 2 has a population margin (Census 2021): its options keep their shares by option, so they "
           "cannot change while it has one. A researcher removes the margin on the results page first.")


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def weighted(direct_survey):
    enter(direct_survey, 2, {"18-34": "0.3", "35-54": "0.4", "55+": "0.3"})
    return direct_survey


def test_the_survey_page_refuses_to_randomize_a_question_with_a_margin(admin_client, weighted):
    data = set_question(current_form(admin_client, survey_url(weighted), "survey_form"), question(weighted, 2),
                        mechanism_name="krr", epsilon="0.3")
    response = admin_client.post(survey_url(weighted), data)
    assert response.status_code == 200 and field_error(response, "mechanism_name").startswith(SWITCH)
    assert Question.objects.get(pk=question(weighted, 2).pk).mechanism_name == "direct"


def test_the_question_page_refuses_to_randomize_a_question_with_a_margin(admin_client, weighted):
    q = question(weighted, 2)
    data = current_form(admin_client, f"{QUESTIONS}{q.pk}/change/", "question_form")
    data.update(mechanism_name=["krr"], epsilon=["0.3"])
    response = admin_client.post(f"{QUESTIONS}{q.pk}/change/", data)
    assert response.status_code == 200 and SWITCH in field_error(response, "mechanism_name")
    assert Question.objects.get(pk=q.pk).mechanism_name == "direct"


def test_the_survey_page_refuses_to_change_the_options_of_a_question_with_a_margin(admin_client, weighted):
    q = question(weighted, 2)
    data = set_question(current_form(admin_client, survey_url(weighted), "survey_form"), q,
                        options_text="18-34\n35-54\n55 and over")
    response = admin_client.post(survey_url(weighted), data)
    assert response.status_code == 200 and field_error(response, "options_text").startswith(OPTIONS)
    assert q.labels() == ["18-34", "35-54", "55+"]


def test_a_question_without_a_margin_may_still_be_randomized(admin_client, direct_survey):
    data = set_question(current_form(admin_client, survey_url(direct_survey), "survey_form"),
                        question(direct_survey, 2), mechanism_name="krr", epsilon="0.3")
    assert admin_client.post(survey_url(direct_survey), data).status_code == 302
    assert question(direct_survey, 2).mechanism_name == "krr"

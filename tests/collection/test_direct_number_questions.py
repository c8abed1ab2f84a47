"""Numbers asked directly (direct_number: not randomized, such as age in years): the admin saves one with its
scale and the bins break-downs use, refuses what does not fit on the field at fault, words it "Not randomized
(direct)" outside the budget; the public definition and a submission take the number's grid index as given."""

import json
import math
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

import ldp
from surveys.collection import builder, plan, submission
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Question, Survey
from surveys.collection.submission import SubmissionError
from surveys.errors import status_of
from tests.collection.helpers import qid, stored
from tests.collection.test_admin_survey_page import FIGURES, field_error, options_of, row, save
from tests.factories import valid_payload

D = Decimal


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def age_row(bins="18\n35: Adults\n65", **shape):
    return row("Your age?", "numeric", "direct_number", bins, epsilon=None, **{"lo": 18, "hi": 99, "step": 1, **shape})


@pytest.fixture
def survey(db):
    return builder.create_survey("ages", "Ages", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Your age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 64", "65 to 99"], edges=["18", "35", "65"]),
    ], status=Survey.Status.OPEN, epsilon_budget=1.2)


# --- the admin ----------------------------------------------------------------------------------


def test_it_saves_with_its_scale_and_bins_and_no_parameter_outside_the_budget(admin_client):
    # One q-RR at ln 3 against a budget of 1.1: the direct number (epsilon infinite) does not count.
    # Without the page's script the epsilon box is sent with whatever it holds: it does not count.
    response = save(admin_client, row("Cheated?", "yes_no", "qrr", epsilon=None, q="0.5"),
                    {**age_row(), "epsilon": 1.0}, budget=1.1)
    assert response.status_code == 302, field_error(response, "options_text") or response.content.decode()[:800]
    saved = Survey.objects.get(slug="habits").questions.get(order=2)
    assert (saved.kind, saved.mechanism_name, saved.q, saved.epsilon) == ("numeric", "direct_number", None, None)
    assert saved.get_mechanism_name_display() == "Not randomized (direct)"
    assert saved.mechanism() == ldp.DirectNumber("18", "99", "1")
    assert options_of(saved) == [("18 to 34", None, D(18)), ("Adults", None, D(35)), ("65 to 99", None, D(65))]


@pytest.mark.parametrize("values, field, words", [
    (age_row("18\n100"), "options_text", "on the grid"),  # an edge above hi
    (age_row("18\n17"), "options_text", "on the grid"),  # below lo
    (age_row("20\n40"), "options_text", "must start at the smallest"),
    (age_row("18\n40\n35"), "options_text", "The lower edges must increase"),
    (age_row("35"), "options_text", "at least two bins"),  # one bin (none at all is fine: no bins)
    (age_row(step=2), "step", "whole number of steps"),
    (row("Region?", "single_choice", "direct_number", "North\nSouth", epsilon=None), "mechanism_name",
     "can be asked directly"),
])
def test_what_does_not_fit_is_refused_on_its_field_and_nothing_is_saved(admin_client, values, field, words):
    response = save(admin_client, values)
    assert response.status_code == 200
    error = field_error(response, field)
    assert error is not None and words in error, (field, error)
    assert not Survey.objects.filter(slug="habits").exists()


def test_the_model_refuses_q_or_epsilon_in_words(survey):
    age = survey.questions.get(order=2)
    age.epsilon = 1.0
    with pytest.raises(ValidationError) as error:
        age.clean()
    assert "Leave q and epsilon empty for a direct question" in error.value.message_dict["epsilon"][0]


def test_the_figures_endpoint_answers_it_as_not_randomized(admin_client):
    body = admin_client.get(f"{FIGURES}?mechanism=direct_number&kind=numeric&lo=18&hi=99&step=1").json()
    assert body["randomized"] is False and body["epsilon"] is None
    refused = admin_client.get(f"{FIGURES}?mechanism=direct_number&kind=numeric&lo=18&hi=99&step=1&epsilon=1")
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "epsilon"


# --- the plan, the definition, a submission --------------------------------------------------------


def test_the_plan_leaves_it_out_of_the_budget_and_relates_it_in_its_bins(survey):
    current = plan.of(survey)
    age = current.questions[1]
    assert current.epsilon_total == pytest.approx(math.log(3)) and current.direct == (age,)
    assert age.mean and age.relatable and age.edge_indexes == [0, 17, 47]
    assert [age.cell(i) for i in (0, 16, 17, 46, 47, 81)] == [0, 0, 1, 1, 2, 2]
    assert age.relating == ldp.Direct(3)


def test_the_public_definition_sends_no_bins_the_browser_would_use(client, survey):
    body = client.get(f"/api/v1/surveys/{survey.slug}/").json()
    age = body["questions"][1]
    assert age["mechanism"]["sampler"] == {"kind": "direct", "k": 82}
    assert age["mechanism"]["randomized"] is False and age["deniability"]["epsilon"] is None
    assert age["scale"] == {"lo": "18", "hi": "99", "step": "1"} and age["bins"] is None


def test_a_submission_stores_the_grid_index_as_given(survey):
    submission.submit(survey, valid_payload(survey, values={2: 81}))
    assert dict(Question.objects.get(survey=survey, order=2).reports.values_list("question__order", "value")) == {
        2: 81}


@pytest.mark.parametrize("report", [82, -1, 2.5, True, "30", None, [30]])
def test_a_number_off_its_grid_is_refused_with_400_and_nothing_is_stored(survey, report):
    with pytest.raises(SubmissionError) as error:
        submission.submit(survey, valid_payload(survey, values={2: report}))
    assert (status_of(error.value), error.value.field) == (400, f"reports.{qid(survey, 2)}")
    assert error.value.reason == "must be a grid index, an integer from 0 to 81 (the value lo + index * step)"
    assert stored() == (0, 0)


def test_the_api_refuses_it_in_json_too(client, survey):
    body = valid_payload(survey, values={2: 82})
    response = client.post(f"/api/v1/surveys/{survey.slug}/responses/", data=json.dumps(body),
                           content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["field"] == f"reports.{qid(survey, 2)}"
    assert stored() == (0, 0)

"""surveys.collection.definition: what the respondent's browser is told about a survey."""

import math
from decimal import Decimal

import pytest

import ldp
from surveys.collection import definition, plan
from surveys.collection.models import Survey
from surveys.collection.serializers import SurveyDefinitionSerializer

EXPECTED = {  # fixture question order -> the ldp mechanism its fields describe, and its report shape
    1: (ldp.QRandomizedResponse(Decimal("0.5")), "index", ["No", "Yes"]),
    2: (ldp.BitFlip(math.log(3)), "index", ["No", "Yes"]),
    3: (ldp.KaryRR(1.0, 3), "index", ["Never", "Sometimes", "Often"]),
    4: (ldp.OptimizedUnary(1.0, 4), "bits", ["A", "B", "C", "D"]),
}


def survey_definition(survey) -> dict:
    return SurveyDefinitionSerializer(definition.of(survey)).data


def test_it_describes_the_survey_and_its_privacy_cost(survey):
    described = survey_definition(survey)
    assert described["slug"] == "health" and described["title"] == "Health"
    assert described["accepting_responses"] is True
    assert described["version"] == plan.of(survey).version
    assert described["epsilon_budget"] == 6.0
    assert described["epsilon_total"] == pytest.approx(
        math.fsum(m.effective_epsilon for m, _, _ in EXPECTED.values()), abs=1e-12)
    assert [q["order"] for q in described["questions"]] == [1, 2, 3, 4]


@pytest.mark.parametrize("order", EXPECTED)
def test_each_question_carries_its_exact_sampler_and_readable_parameters(survey, order):
    mechanism, report, options = EXPECTED[order]
    described = survey_definition(survey)["questions"][order - 1]
    assert described["id"] == survey.questions.get(order=order).pk
    assert described["options"] == options
    summary = described["mechanism"]
    assert summary["encoding"] == report
    assert summary["sampler"] == mechanism.sampler()
    assert all(isinstance(v, int) for k, v in summary["sampler"].items() if k != "kind")
    assert summary["name"] == mechanism.name and summary["parameters"] == mechanism.to_dict()
    assert summary["effective_epsilon"] == mechanism.effective_epsilon
    assert summary["effective_epsilon"] <= mechanism.epsilon + 1e-12
    assert summary["p"] == mechanism.p and summary["q_other"] == mechanism.q_other
    expected_q = math.tanh(mechanism.effective_epsilon / 2) if mechanism.name in ("qrr", "bitflip") else None
    assert summary["q_equivalent"] == (pytest.approx(expected_q) if expected_q is not None else None)
    assert described["deniability"] == ldp.deniability(mechanism)
    assert summary == {**mechanism.describe(), "randomized": True}  # the one description, whole


def test_q_randomized_response_keeps_the_truth_with_probability_one_plus_q_over_two_exactly(survey):
    sampler = survey_definition(survey)["questions"][0]["mechanism"]["sampler"]
    assert sampler["keep"] * 2 == sampler["modulus"] * (1 + Decimal("0.5"))
    assert sampler["keep"] + sampler["other"] == sampler["modulus"]


def test_a_closed_survey_is_described_as_not_accepting(survey):
    survey.status = Survey.Status.CLOSED
    survey.save()
    assert survey_definition(survey)["accepting_responses"] is False

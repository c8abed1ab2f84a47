"""surveys.collection.definition: what the respondent's browser is told about a survey."""

import json
import math
from decimal import Decimal

import pytest
from django.urls import reverse

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
    return SurveyDefinitionSerializer(definition.read(survey)).data


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


# Multi-select, numeric and ordinal questions: each one's kind, sampler (with its integers), scale, bins and
# scores, as the browser and an auditor need them; and the schema's components for their samplers.
def test_it_carries_each_kinds_sampler_scale_bins_and_scores(client, kinds_survey):
    body = client.get(f"/api/v1/surveys/{kinds_survey.slug}/").json()
    current = plan.of(kinds_survey)
    multi, onebit, dlaplace, ages, gamble = body["questions"]
    assert [q["kind"] for q in body["questions"]] == ["multi_select", "numeric", "numeric", "numeric", "ordinal"]
    assert [q["mechanism"]["sampler"] for q in body["questions"]] == [q.mechanism.sampler() for q in current]
    assert multi["mechanism"]["sampler"]["at_most"] == 2 and multi["mechanism"]["hamming_d"] == 4
    assert multi["mechanism"]["effective_epsilon"] == current.questions[0].mechanism.effective_epsilon
    assert onebit["scale"] == {"lo": "0", "hi": "100", "step": "1"} and onebit["options"] == []
    assert dlaplace["mechanism"]["p"] is None and dlaplace["mechanism"]["encoding"] == "integer"
    assert dlaplace["mechanism"]["bound"] == current.questions[2].mechanism.bound
    assert ages["bins"] == [{"label": "0 to 17", "lower": "0", "lower_index": 0},
                            {"label": "18 to 34", "lower": "18", "lower_index": 18},
                            {"label": "35 to 64", "lower": "35", "lower_index": 35},
                            {"label": "65 to 120", "lower": "65", "lower_index": 65}]
    assert gamble["scores"] == ["1", "2", "3", None] and gamble["bins"] is None and gamble["scale"] is None
    assert body["epsilon_total"] == current.epsilon_total


def test_the_old_kinds_have_no_scale_bins_or_scores_and_unchanged_samplers(client, survey):
    body = client.get(f"/api/v1/surveys/{survey.slug}/").json()
    for question in body["questions"]:
        assert (question["scale"], question["bins"], question["scores"]) == (None, None, None)
        assert "at_most" not in question["mechanism"]["sampler"] and "at_most" not in question["mechanism"]


def test_the_schema_describes_each_new_sampler_as_its_own_component(client, db):
    schema = json.loads(client.get(reverse("aggregation:api-schema")).content)["components"]["schemas"]
    assert {"MultiSelectSampler", "OneBitSampler", "DiscreteLaplaceSampler", "Sampler"} <= set(schema)
    assert set(schema["QuestionKindEnum"]["enum"]) == {"yes_no", "single_choice", "multi_select", "numeric", "ordinal"}
    assert schema["MultiSelectSamplerKindEnum"]["enum"] == ["multiselect"]
    assert set(schema["DiscreteLaplaceSampler"]["required"]) == {"kind", "steps", "lo", "hi", "step", "scale_num",
                                                                 "scale_den", "bound"}
    assert schema["Mechanism"]["properties"]["sampler"]["allOf"] == [{"$ref": "#/components/schemas/AnySampler"}]
    assert {one["$ref"].rsplit("/", 1)[1] for one in schema["AnySampler"]["oneOf"]} == {
        "Sampler", "MultiSelectSampler", "OneBitSampler", "DiscreteLaplaceSampler"}
    assert schema["Mechanism"]["properties"]["p"].get("nullable") is True
    assert {"scale", "bins", "scores"} <= set(schema["QuestionDefinition"]["properties"])

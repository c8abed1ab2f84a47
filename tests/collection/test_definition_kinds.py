"""The public definition API for the new kinds: each question's kind, sampler (with its integers),
scale, bins and scores, as the browser and an auditor need them; and the OpenAPI schema's
components for the new samplers."""

import json

from django.urls import reverse

from surveys.collection import plan


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

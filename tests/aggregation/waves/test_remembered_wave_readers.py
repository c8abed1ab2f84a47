"""A wave whose questions remember their randomization, read as every reader reads it: each stored report is an
instantaneous randomization of a permanent one, so the estimates API, its planner, the codebook, `ldp analyze`
and the generated scripts all debias through the composed channel of both layers
(`ldp.mechanisms.remembered.Remembered`), never
through the instantaneous layer alone.

The wave is `series_support.monthly`'s first (q1 yes/no by q-RR 0.5 over a permanent 0.8, q2 k-RR epsilon 1 over a
permanent 3 with truth 0.2/0.3/0.5, q3 a multi-select that remembers nothing), 300 respondents, seeded."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from django.urls import reverse

import ldp
from ldp.mechanisms.remembered import Composed
from ldp.offline import analyze
from ldp.sequences.fractions import anytime_respondents_needed
from surveys.aggregation.exports.column_labels import columns as columns_of
from surveys.aggregation.exports.reports import described
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.relating import crosstab
from surveys.collection import plan
from surveys.collection.models import Question
from surveys.collection.serializers import MechanismSerializer
from tests.aggregation.scripts.test_analysis_scripts import assert_same_as_the_api, fetch, run_ldp, run_python, run_r
from tests.aggregation.series_support import layers, monthly, store_waves

RESPONDENTS = 300


@pytest.fixture
def wave(client, owner):
    """(survey, {question id: stored values}), the owner logged in."""
    survey = monthly(owner, waves=1)[0]
    values = store_waves([survey], RESPONDENTS, seed=11)[1]
    client.force_login(owner)
    return survey, values


def estimates(client, survey, parameters=""):
    return client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + parameters).json()


def composed_of(survey) -> dict[int, ldp.Mechanism]:
    """{order: the mechanism its reports are read with}: both layers composed where remembered."""
    found = {}
    for order, remembered in layers(survey).items():
        question = Question.objects.get(survey=survey, order=order)
        found[order] = Composed(remembered) if remembered is not None else question.mechanism()
    return found


def option_rows(estimate: ldp.Estimate, simplex: bool) -> list[tuple]:
    """As the API gives them: a multi-select's options are not one answer, so it has no simplex projection."""
    return [(estimate.counts[j], estimate.estimate[j], estimate.std_error[j], estimate.ci_low[j], estimate.ci_high[j],
             estimate.ci_low_unclipped[j], estimate.ci_high_unclipped[j], estimate.clipped[j],
             estimate.simplex[j] if simplex else None) for j in range(len(estimate.estimate))]


def api_rows(question: dict) -> list[tuple]:
    return [(o["count"], o["estimate"], o["std_error"], o["ci_low"], o["ci_high"], o["ci_low_unclipped"],
             o["ci_high_unclipped"], o["post_processed"]["clipped"], o["post_processed"]["simplex"])
            for o in question["options"]]


def test_the_estimates_api_debiases_each_remembered_question_through_both_layers(client, wave):
    survey, values = wave
    api = estimates(client, survey, "?interval=wilson&confidence=0.9")
    remembered = layers(survey)
    for question in api["questions"]:
        instant = Question.objects.get(pk=question["id"]).mechanism()
        stored, times = np.unique(values[question["id"]], return_counts=True)
        counts = instant.tally(stored, times)
        layered = remembered[question["order"]]
        reader = layered if layered is not None else instant
        expected = reader.estimate(counts, RESPONDENTS, confidence=0.9, interval="wilson")
        assert api_rows(question) == option_rows(expected, instant.one_of_k), question["key"]
    assert [remembered[order] is not None for order in (1, 2, 3)] == [True, True, False]


def test_the_api_describes_the_composed_channel_and_one_waves_loss_with_the_permanent_layer(client, wave):
    survey, _ = wave
    api = estimates(client, survey, "?interval=wilson")
    readers = composed_of(survey)
    assert [q["mechanism"] for q in api["questions"]] == [
        json.loads(json.dumps(MechanismSerializer(readers[order]).data)) for order in (1, 2, 3)]
    second = api["questions"][1]["mechanism"]
    p, q = layers(survey)[2].exact_channel()
    assert (second["p"], second["q_other"], second["effective_epsilon"]) == (
        float(p), float(q), layers(survey)[2].wave_epsilon)
    assert second["parameters"] == {"mechanism": "krr", "epsilon": 1.0, "k": 3,
                                    "permanent": {"mechanism": "krr", "epsilon": 3.0, "k": 3}}


def test_the_anytime_default_and_the_planner_read_the_composed_channel(client, wave):
    survey, values = wave
    api = estimates(client, survey)  # open: the interval valid however often one looks
    assert api["interval"] == "anytime"
    readers = composed_of(survey)
    for question in api["questions"][:2]:
        reader = readers[question["order"]]
        reports = values[question["id"]]
        expected = reader.estimate(reader.counts(reports), len(reports))
        assert [o["estimate"] for o in question["options"]] == list(expected.estimate), question["key"]
        assert question["planner"]["respondents_needed"] == anytime_respondents_needed(reader, 0.05, 0.95), (
            question["key"])


def test_the_codebook_gives_the_composed_fractions_and_the_browsers_instantaneous_sampler(client, wave, tmp_path):
    survey, _ = wave
    folder = fetch(client, survey, tmp_path)
    codebook = json.loads((folder / f"{survey.slug}-codebook.json").read_text())
    readers = composed_of(survey)
    assert [entry["mechanism"] for entry in codebook["questions"]] == [
        json.loads(json.dumps(described(readers[order]))) for order in (1, 2, 3)]
    for entry, order in zip(codebook["questions"][:2], (1, 2), strict=True):
        mechanism = entry["mechanism"]
        remembered = layers(survey)[order]
        assert (Fraction(mechanism["p_exact"]), Fraction(mechanism["q_other_exact"])) == remembered.exact_channel()
        assert mechanism["sampler"] == remembered.instant.sampler()
        assert mechanism["permanent"] == json.loads(json.dumps(remembered.permanent.describe()))


@pytest.mark.slow
def test_ldp_analyze_and_the_scripts_give_the_apis_numbers_on_a_remembering_wave(client, wave, tmp_path):
    survey, _ = wave
    folder = fetch(client, survey, tmp_path)
    api = estimates(client, survey, "?interval=wilson")
    for export in ("csv", "json"):
        assert_same_as_the_api(run_ldp(folder, f"{survey.slug}-reports.{export}", []), api, f"ldp analyze, {export}",
                               analyze.ROW_COLUMNS)
    assert_same_as_the_api(run_python(folder, survey.slug, [])[1], api, "Python")
    assert_same_as_the_api(run_r(folder, survey.slug, [])[1], api, "R")


def test_the_waves_section_agrees_with_the_estimates_api_and_names_the_instantaneous_layer(client, wave):
    survey, _ = wave
    api = estimates(client, survey, "?interval=wilson")
    across = client.get(reverse("aggregation:api-waves", args=[survey.slug])).json()
    remembered = layers(survey)
    for trend, question in zip(across["questions"], api["questions"][:2], strict=True):
        (point,) = trend["waves"]
        instant = remembered[trend["order"]].instant
        assert point["mechanism"] == json.loads(json.dumps(MechanismSerializer(instant).data)), trend["key"]
        assert point["estimate"] == [option["estimate"] for option in question["options"]], trend["key"]
        assert point["epsilon"] == question["mechanism"]["effective_epsilon"], trend["key"]


def test_a_cross_tab_reads_each_remembered_question_through_both_layers(wave):
    survey, _ = wave
    readers = composed_of(survey)
    questions = {q.order: q for q in survey.ordered_questions()}
    for one, two in [(1, 2), (2, 3)]:
        found = crosstab.crosstab(survey, ResultOptions(a=questions[one].pk, b=questions[two].pk, confidence=0.9))
        a, b = readers[one], readers[two]
        assert found.joint == ldp.estimate_joint(a, b, found.counts, confidence=0.9), (one, two)
        assert found.b_given_a == ldp.estimate_conditional(a, b, found.counts, given="a", confidence=0.9)
        assert found.relation.test == ldp.independence(a, b, found.counts)
        assert found.joint != ldp.estimate_joint(a.instant, b, found.counts, confidence=0.9)


def test_an_exports_column_label_names_both_layers_and_the_composed_channel(wave):
    survey, _ = wave
    labels = {column.name: column for column in columns_of(plan.of(survey))}
    p, q = layers(survey)[2].exact_channel()
    a, b, modulus = composed_of(survey)[2].channel()
    assert labels["q2"].channel == (f"krr (epsilon = 1.0, k = 3) over a permanent krr (epsilon = 3.0, k = 3), "
                                    f"p = {a}/{modulus}, q_other = {b}/{modulus}")
    assert (Fraction(a, modulus), Fraction(b, modulus)) == (p, q)
    assert labels["q3_0"].channel.startswith("multiselect (epsilon = 2.0, k = 3, at_most = None), p = ")

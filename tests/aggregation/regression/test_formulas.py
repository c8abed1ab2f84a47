"""Models written as formulas through the models API and its CSV (surveys.aggregation.regression.formulas): the same
model as the covariates form gives identical numbers; interactions, powers and a chosen reference fit; anything a
formula may not say is a 400 naming formula, with nothing fitted."""

import json

import numpy as np
import pytest
from django.urls import reverse

from ldp.regression import logistic
from surveys.collection import plan
from tests.aggregation.model_support import answer, make_survey

N = 1500


@pytest.fixture
def survey(owner):
    made = make_survey(owner)
    answer(made, N, seed=11)
    return made


@pytest.fixture
def ids(survey):
    return {q.order: q.id for q in plan.of(survey)}


def ask(client, survey, query):
    response = client.get(reverse("aggregation:api-models", args=[survey.slug]), query)
    return response.status_code, json.loads(response.content)


def test_a_formula_gives_the_covariates_forms_numbers_exactly(owner_client, survey, ids):
    listed = {"outcome": ids[1], "covariates": f"{ids[2]},{ids[3]},{ids[4]}", "reference": f"{ids[2]}:1",
              "square": ids[4], "margin": "0.1"}
    written = {"formula": "q1 ~ C(q2, Treatment(1)) + q3 + q4 + I(q4**2)", "margin": "0.1"}
    (status, a), (other, b) = ask(owner_client, survey, listed), ask(owner_client, survey, written)
    assert (status, other) == (200, 200), (a, b)
    assert b["terms"] == ["(Intercept)", "C(q2, Treatment(1))[T.0]", "C(q2, Treatment(1))[T.2]", "q3[T.1]", "q4",
                          "I(q4 ** 2)"]
    numbers = ("estimate", "std_error", "z", "p_value", "ci_low", "ci_high", "odds_ratio", "odds_ratio_low",
               "odds_ratio_high", "n", "dropped", "log_likelihood", "null_log_likelihood", "test", "se", "power")
    assert {key: b[key] for key in numbers} == {key: a[key] for key in numbers}
    assert b["references"] == [] and b["outcome"] == a["outcome"]


def test_a_formula_with_an_interaction_is_ldps_fit_of_its_columns(owner_client, survey, ids):
    status, body = ask(owner_client, survey, {"formula": "q1 ~ q3 * I(q4 / 10)", "se": "opg", "margin": "0.1"})
    assert status == 200, body
    assert body["terms"] == ["(Intercept)", "q3[T.1]", "I(q4 / 10)", "q3[T.1]:I(q4 / 10)"]
    assert body["se"] == "opg" and len(body["p_value"]) == 4


BAD = ["q1 ~ __import__('os').system('true')", "q1 ~ q4.real", "q1 ~ log(q4)", "q1 ~ q4 - 1", "q1 ~",
       "q1 ~ q99", "q2 ~ q3", "q1 ~ q5", "q1 ~ C(q2, Treatment(7))", "q1 ~ I(q2 * 2)", "q1 ~ q1 + q3",
       "q1 ~ " + " + ".join(["q4"] * 200)]


@pytest.mark.parametrize("text", BAD)
def test_a_formula_beyond_what_it_may_say_is_refused_naming_formula(owner_client, survey, text):
    status, body = ask(owner_client, survey, {"formula": text, "margin": "0.1"})
    assert (status, body["error"]["field"]) == (400, "formula"), body


@pytest.mark.parametrize("extra", [{"outcome": "1"}, {"covariates": "2"}, {"square": "2"}])
def test_a_formula_beside_the_parameters_it_replaces_is_refused(owner_client, survey, ids, extra):
    status, body = ask(owner_client, survey, {"formula": "q1 ~ q3", "margin": "0.1", **extra})
    assert (status, body["error"]["field"]) == (400, "formula"), body


def test_a_formula_model_writes_its_csv(owner_client, survey):
    response = owner_client.get(reverse("aggregation:export-model", args=[survey.slug]),
                                {"formula": "q1 ~ q3 + q4", "margin": "0.1"})
    assert response.status_code == 200
    lines = response.content.decode().splitlines()
    assert [line.split(",")[0] for line in lines[1:]] == ["(Intercept)", "q3[T.1]", "q4"]


def test_the_intercept_alone_is_a_formula_too(owner_client, survey):
    status, body = ask(owner_client, survey, {"formula": "q1 ~ 1", "margin": "0.1"})
    assert status == 200 and body["terms"] == ["(Intercept)"], body
    assert np.isfinite(body["estimate"][0]) and logistic is not None


def test_collinear_terms_of_a_formula_are_a_409_naming_formula(owner_client, survey):
    status, body = ask(owner_client, survey, {"formula": "q1 ~ q4 + I(2 * q4 + 3)", "margin": "0.1"})
    assert (status, body["error"]["field"]) == (409, "formula"), body
    assert body["error"]["reason"].startswith("The covariates are collinear")


def test_a_monthly_income_with_its_square_fits_as_the_same_model_in_thousands(owner):
    """A direct number of 0 to 20,000 with its square (the form's square box, and a formula) fits, with the fitted
    probabilities of the same model on income / 1000: the fit centres and scales its columns
    (ldp.regression.scaling)."""
    from django.test import Client

    from surveys.collection import builder
    from surveys.collection.builder import QuestionSpec

    made = builder.create_survey("income", "Income", [
        QuestionSpec("Smoked?", "bitflip", epsilon=2.0),
        QuestionSpec("Monthly income?", "direct_number", kind="numeric", scale=("0", "20000", "10"),
                     options=["low", "high"], edges=["0", "5000"])], status="closed", epsilon_budget=30.0)
    made.researchers.add(owner)
    questions = {q.order: q for q in plan.of(made)}
    rng = np.random.default_rng(21)
    index = rng.integers(0, 2001, size=N)  # the grid index: income = 10 index
    k = index / 100
    truth = (rng.random(N) < 1 / (1 + np.exp(-(-1.5 + 0.3 * k - 0.012 * k**2)))).astype(np.int64)
    reports = {1: questions[1].mechanism.randomize(truth, rng), 2: index}
    builder.write_responses(made, {questions[o].id: questions[o].mechanism.encode_many(v) for o, v in reports.items()})
    client = Client()
    client.force_login(owner)
    square = {"outcome": questions[1].id, "covariates": questions[2].id, "square": questions[2].id, "margin": "0.1"}
    answers = [ask(client, made, query) for query in (
        square, {"formula": "q1 ~ q2 + I(q2^2)", "margin": "0.1"},
        {"formula": "q1 ~ I(q2 / 1000) + I((q2 / 1000)^2)", "margin": "0.1"})]
    assert [status for status, _ in answers] == [200, 200, 200], answers
    income = 10.0 * np.arange(2001)
    fitted = [1 / (1 + np.exp(-(b["estimate"][0] + b["estimate"][1] * income * scale
                                 + b["estimate"][2] * (income * scale) ** 2)))
              for (_, b), scale in zip(answers, (1.0, 1.0, 1e-3), strict=True)]
    assert np.abs(fitted[0] - fitted[2]).max() < 1e-9 and np.abs(fitted[1] - fitted[2]).max() < 1e-9
    assert answers[0][1]["estimate"] == answers[1][1]["estimate"]
    assert answers[0][1]["p_value"][1:] == pytest.approx(answers[2][1]["p_value"][1:], rel=1e-6)

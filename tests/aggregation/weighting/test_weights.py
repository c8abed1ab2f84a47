"""Weighted estimates (surveys.aggregation.weighting.weights): the responses raked to the population margins entered
for the survey's direct questions, and every question's figures under those weights, through the estimates API.

The expected figures are computed here from the very arrays the responses were written from (response i has
report i of every question), with ldp's raking and weighted estimators: what the app must add is reading the
right reports, in the right order, against the right options' shares."""

import json

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ldp.regression.linear import per_report_values
from ldp.weighting.estimates import indicators, weighted_fractions, weighted_mean
from ldp.weighting.raking import margin, rake
from surveys.aggregation.weighting import weights as weighting
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses
from tests.aggregation.weighting_support import AGE, REGION, SIX_QUESTIONS, enter, make_ages_survey

N = 600


@pytest.fixture
def survey(db, owner):
    """1 qrr, 2 direct age band, 3 direct region, 4 krr (3 options), 5 sue (3), 6 ordinal by oue, every level
    scored, 7 a numeric mean by the 1-bit mean; the sample has too many young people and northerners."""
    made = builder.create_survey("weights", "Weights", [
        *SIX_QUESTIONS,
        QuestionSpec("Hours online?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "10", "1")),
    ], status=Survey.Status.OPEN, epsilon_budget=20.0)
    made.researchers.add(owner)
    return made


@pytest.fixture
def answered(survey):
    return add_responses(survey, N, seed=11, truth={2: [0.5, 0.3, 0.2], 3: [0.7, 0.3]})


def estimates(client, survey, query):
    response = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + query)
    return response.status_code, json.loads(response.content)


def test_every_figure_is_weighted_to_the_margins(owner_client, survey, answered):
    enter(survey, 2, AGE)
    enter(survey, 3, REGION, source="Regional register")
    status, body = estimates(owner_client, survey, "?weighted=true")
    assert status == 200, body
    by_order = {q.order: values for q, values in answered.items()}
    design = rake([margin("age", by_order[2], dict(enumerate(AGE.values()))),
                   margin("region", by_order[3], dict(enumerate(REGION.values())))], cap=5.0)
    assert body["weights"] == {
        "margins": [{"question": "Age band?", "source": "Census 2021", "shares": AGE},
                    {"question": "Region?", "source": "Regional register", "shares": REGION}],
        "n": N, "left_out": 0, "min": pytest.approx(design.weights.min()), "max": pytest.approx(design.weights.max()),
        "design_effect": pytest.approx(design.design_effect), "effective_n": pytest.approx(design.effective_n),
        "cap": 5.0, "cap_met": True}
    questions = {q["order"]: q for q in body["questions"]}
    for order, values in by_order.items():
        if order == 7:
            continue
        question = survey.questions.get(order=order)
        expected = weighted_fractions(question.mechanism(), values, design, 0.95)
        found = questions[order]
        assert found["interval"] == "weighted" and found["n"] == N
        assert [o["estimate"] for o in found["options"]] == pytest.approx(list(expected.estimate), abs=1e-12)
        assert [o["std_error"] for o in found["options"]] == pytest.approx(list(expected.std_error), abs=1e-12)
        assert [o[end] for end in ("ci_low", "ci_high") for o in found["options"]] == pytest.approx(
            [*expected.ci_low, *expected.ci_high], abs=1e-12)
    # The weighted sample has the population's age bands and regions exactly.
    assert [o["estimate"] for o in questions[2]["options"]] == pytest.approx(list(AGE.values()), abs=1e-9)
    assert [o["estimate"] for o in questions[3]["options"]] == pytest.approx(list(REGION.values()), abs=1e-9)
    # The ordinal question's mean score: the weighted mean of each report's unbiased linear score.
    mechanism = survey.questions.get(order=6).mechanism()
    unbiased = (indicators(mechanism, by_order[6]) - mechanism.q_other) / (mechanism.p - mechanism.q_other)
    score = weighted_mean(unbiased @ np.array([-1.0, 0.0, 2.5]), design, -1.0, 2.5)
    assert (questions[6]["mean"]["mean"], questions[6]["mean"]["std_error"]) == pytest.approx(
        (score.mean, score.std_error), abs=1e-12)
    # The numeric mean: the weighted mean of the per-report unbiased values.
    hours = weighted_mean(per_report_values(survey.questions.get(order=7).mechanism(), by_order[7]), design, 0, 10)
    assert questions[7]["mean"] == pytest.approx(hours.as_dict(), abs=1e-12)
    assert questions[7]["interval"] == "weighted"


def test_unweighted_figures_say_so(owner_client, survey, answered):
    enter(survey, 2, AGE)
    status, body = estimates(owner_client, survey, "")
    assert status == 200 and body["weights"] is None
    assert {q["interval"] for q in body["questions"]} == {"anytime"}


def test_it_refuses_to_weight_a_survey_without_margins(owner_client, survey, answered):
    status, body = estimates(owner_client, survey, "?weighted=1")
    assert status == 400 and body["error"]["code"] == "bad_parameter" and body["error"]["field"] == "weighted"
    assert "no population margins" in body["error"]["reason"]


def test_it_refuses_weighted_figures_with_intervals_valid_at_any_time(owner_client, survey, answered):
    enter(survey, 2, AGE)
    status, body = estimates(owner_client, survey, "?weighted=1&interval=anytime")
    assert status == 400 and body["error"]["field"] == "interval"


def test_a_margin_category_nobody_chose_cannot_be_weighted(owner_client, survey):
    add_responses(survey, 50, seed=2, truth={2: [0.5, 0.5, 0.0]})
    enter(survey, 2, AGE)
    status, body = estimates(owner_client, survey, "?weighted=1")
    assert status == 409 and body["error"]["field"] == "weighted"
    assert body["error"]["reason"] == (
        "Age band?: no respondents in the categories ['55+'], which have a population share"
    )


def test_other_researchers_see_no_weighted_figures(client, other_researcher, survey, answered):
    enter(survey, 2, AGE)
    client.force_login(other_researcher)
    status, _ = estimates(client, survey, "?weighted=1")
    assert status == 404


def test_the_dashboard_offers_weighted_figures_once_margins_exist(owner_client, survey, answered):
    url = reverse("aggregation:dashboard", args=[survey.slug])
    before = owner_client.get(url).content.decode()
    assert "weights-offer" not in before  # no weighted figures to offer: setting the margins instead
    margins = reverse("aggregation:margins", args=[survey.slug])
    assert f'<a href="{margins}">Set population margins</a>' in before
    enter(survey, 2, AGE)
    page = owner_client.get(url).content.decode()
    link = "?confidence=0.95&amp;simultaneous=off&amp;margin=0.05&amp;weighted=on"
    assert f'class="note weights-offer"><a href="{link}"' in page


def test_the_weighted_dashboard_says_to_what_and_at_what_cost(owner_client, survey, answered):
    enter(survey, 2, AGE)
    enter(survey, 3, REGION, source="Regional register")
    response = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]) + "?weighted=on")
    page = response.content.decode()
    assert response.status_code == 200
    body = estimates(owner_client, survey, "?weighted=on")[1]["weights"]
    assert "<strong>Age band?</strong> (Census 2021): 18-34 30.0%, 35-54 40.0%, 55+ 30.0%" in page
    assert "<strong>Region?</strong> (Regional register): North 45.0%, South 55.0%" in page
    assert (f"Weights from {body['min']:.2f} to {body['max']:.2f} (capped at 5 times their median). Design effect "
            f"{body['design_effect']:.2f}: the weighted figures are as precise as a simple random sample of "
            f"{body['effective_n']:.0f} of these {N} responses.") in page
    assert '<input type="hidden" name="weighted" value="on">' in page and "Show unweighted figures" in page


def test_a_number_asked_directly_is_weighted_as_the_answers_themselves(owner_client, owner):
    """A direct number's per-report value is its answer, lo + step * i (no noise to take out); its interval is
    Student t on n - 1 degrees of freedom, as its unweighted one (surveys.aggregation.weighting.weights._degrees)."""
    made = make_ages_survey(owner, "ages")
    answered = {q.order: values for q, values in add_responses(made, N, seed=4, truth={1: [0.5, 0.3, 0.2]}).items()}
    enter(made, 1, AGE)
    status, body = estimates(owner_client, made, "?weighted=true")
    assert status == 200, body
    design = rake([margin("age", answered[1], dict(enumerate(AGE.values())))], cap=5.0)
    years = weighted_mean(18.0 + np.asarray(answered[2], dtype=float), design, 18, 99, df=N - 1)
    assert body["questions"][1]["mean"] == pytest.approx(years.as_dict(), abs=1e-12)
    assert body["questions"][1]["interval"] == "weighted"


def test_responses_without_every_margin_answer_are_left_out_and_the_rest_weighted_as_alone(owner_client, survey,
                                                                                          answered):
    enter(survey, 2, AGE)
    enter(survey, 3, REGION)
    status, alone = estimates(owner_client, survey, "?weighted=true")
    current = {q.order: q.id for q in plan.of(survey)}
    builder.write_responses(survey, {current[1]: [0, 1, 1], current[2]: [0, 1, 2]})  # no region: not weighted
    status, body = estimates(owner_client, survey, "?weighted=true")
    assert status == 200 and body["weights"]["left_out"] == 3 and body["weights"]["n"] == N
    assert weighted_figures(body) == weighted_figures(alone) and body["weights"] == {**alone["weights"], "left_out": 3}


def weighted_figures(body):
    """Each question's weighted figures: its options' estimates and intervals, and its mean."""
    return [(q["mean"], [{key: o[key] for key in ("estimate", "std_error", "ci_low", "ci_high")}
                         for o in q["options"]]) for q in body["questions"]]


def test_a_weighted_response_without_some_question_is_refused_naming_it(owner_client, survey, answered):
    enter(survey, 2, AGE)
    current = {q.order: q.id for q in plan.of(survey)}
    builder.write_responses(survey, {q: [0] for order, q in current.items() if order != 4})
    status, body = estimates(owner_client, survey, "?weighted=true")
    assert status == 409 and body["error"] == {
        "code": "unavailable", "field": "weighted",
        "reason": "Question 4 was not answered by every weighted response."}


def test_a_weighted_request_beyond_what_may_be_read_is_refused_before_any_answer_is_read(owner_client, survey,
                                                                                        answered, settings):
    enter(survey, 2, AGE)
    settings.WEIGHT_NOW_VALUES = 7 * N - 1  # one answer fewer than seven questions' answers of N responses
    with CaptureQueriesContext(connection) as queries:
        status, body = estimates(owner_client, survey, "?weighted=true")
    assert status == 409 and body["error"]["reason"].startswith(f"{N} responses are too many to weight")
    assert not [q["sql"] for q in queries.captured_queries if "collection_report" in q["sql"]]
    settings.WEIGHT_NOW_VALUES = 7 * N  # exactly the limit: counted once, then kept running
    assert estimates(owner_client, survey, "?weighted=true")[0] == 200
    settings.WEIGHT_NOW_VALUES = 1
    with CaptureQueriesContext(connection) as queries:
        assert estimates(owner_client, survey, "?weighted=true")[0] == 200
    assert not [q["sql"] for q in queries.captured_queries if "collection_report" in q["sql"]]


def test_answers_read_by_the_slower_join_are_limited_to_a_part_of_the_values(owner_client, survey, answered,
                                                                              settings):
    enter(survey, 2, AGE)
    current = {q.order: q.id for q in plan.of(survey)}
    builder.write_responses(survey, {q: [0] for order, q in current.items() if order != 4})  # incomplete: joined
    settings.WEIGHT_NOW_VALUES = weighting.JOINED * 7 * (N + 1) - 1
    status, body = estimates(owner_client, survey, "?weighted=true")
    assert status == 409 and body["error"]["reason"] == (
        "Some responses lack an answer to a question these figures need, so their answers are read by a slower "
        f"join: at most {7 * (N + 1) - 1:,} answers within a request. Ask for fewer questions (a cross-tab), or "
        "unweighted.")
    settings.WEIGHT_NOW_VALUES = weighting.JOINED * 7 * (N + 1)  # exactly what the join may read
    assert estimates(owner_client, survey, "?weighted=true")[1]["error"]["reason"] == (
        "Question 4 was not answered by every weighted response.")

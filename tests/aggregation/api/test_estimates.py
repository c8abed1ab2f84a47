"""GET /api/v1/surveys/<slug>/estimates/: the dashboard's numbers as JSON; for multi-select, numeric and ordinal
questions, per-option fractions where a kind has options, a mean where it has one (a numeric mean; an ordinal mean
score), the scale, bins and scores, and a planner whose margin on a mean is in the question's units."""

import math

import pytest
from django.urls import reverse

import ldp
from surveys.aggregation.api.serializers import SurveyEstimatesSerializer
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import service as results
from surveys.aggregation.templatetags.results_format import percent
from surveys.collection import builder
from tests.aggregation.support import add_responses, counts
from tests.factories import INEXACT_BITFLIP_EPSILONS, assert_q_of_the_effective_epsilon


def get(client, user, survey, query=""):
    client.force_login(user)
    return client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + query)


def test_it_answers_with_no_one_or_many_responses(client, owner, sized_survey):
    response = get(client, owner, sized_survey)
    assert response.status_code == 200
    data = response.json()
    n = sized_survey.responses.count()
    assert data["survey"]["responses"] == n
    assert [q["n"] for q in data["questions"]] == [n] * 4
    if n == 0:
        assert all(o["estimate"] is None for q in data["questions"] for o in q["options"])


def test_its_estimates_equal_ldps_on_the_reports_counts(client, owner, survey):
    reports = add_responses(survey, 250, seed=21)
    data = get(client, owner, survey, "?interval=wilson").json()
    for question, values in reports.items():
        expected = question.mechanism().estimate(counts(question, values), 250)
        got = next(q for q in data["questions"] if q["id"] == question.pk)
        assert [o["estimate"] for o in got["options"]] == pytest.approx(expected.estimate)
        assert [o["std_error"] for o in got["options"]] == pytest.approx(expected.std_error)
        assert [o["ci_low"] for o in got["options"]] == pytest.approx(expected.ci_low)
        assert [o["ci_high"] for o in got["options"]] == pytest.approx(expected.ci_high)
        assert [o["count"] for o in got["options"]] == list(expected.counts)


@pytest.mark.slow
def test_it_shows_the_same_numbers_as_the_dashboard(client, owner, survey):
    add_responses(survey, 90, seed=22)
    query = "?confidence=0.9&interval=exact&margin=0.5"  # enough respondents for the dashboard's figures
    data = get(client, owner, survey, query).json()
    html = client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)
    html = html.content.decode()
    for question in data["questions"]:
        for option in question["options"]:
            assert f"{percent(option['estimate'])}</td>" in html
            assert f"{percent(option['ci_low'])} – {percent(option['ci_high'])}" in html


def test_it_applies_confidence_interval_and_simultaneous(client, owner, survey):
    add_responses(survey, 60, seed=23)
    data = get(client, owner, survey, "?confidence=0.99&interval=exact&simultaneous=true&margin=0.1").json()
    assert (data["confidence"], data["interval"], data["simultaneous"]) == (0.99, "exact", True)
    expected = SurveyEstimatesSerializer(results.survey_results(survey, ResultOptions(0.99, "exact", True, 0.1))).data
    assert data == expected
    oue = data["questions"][3]
    assert oue["interval_level"] == pytest.approx(1 - 0.01 / 4)
    assert oue["planner"]["margin"] == 0.1


def test_it_describes_each_mechanism(client, owner, survey):
    data = get(client, owner, survey).json()
    qrr, bitflip, krr, oue = data["questions"]
    assert qrr["mechanism"]["parameters"] == {"mechanism": "qrr", "q": "0.5"}
    assert qrr["mechanism"]["q_equivalent"] == pytest.approx(0.5)
    assert bitflip["mechanism"]["effective_epsilon"] == pytest.approx(math.log(3), abs=1e-8)
    assert krr["mechanism"]["q_equivalent"] is None
    assert oue["counts_are"].startswith("reports with a 1")
    assert oue["mechanism"]["p"] == 0.5


@pytest.mark.parametrize("query,field", [
    ("?confidence=0.3", "confidence"),
    ("?confidence=1.5", "confidence"),
    ("?confidence=abc", "confidence"),
    ("?interval=wald", "interval"),
    ("?simultaneous=perhaps", "simultaneous"),
    ("?margin=2", "margin"),
    ("?level=0.9", "level"),
])
def test_it_rejects_bad_parameters_with_400_naming_the_field(client, owner, survey, query, field):
    response = get(client, owner, survey, query)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == field and error["reason"]


def test_an_unassigned_researcher_gets_404_even_with_bad_parameters(client, other_researcher, survey):
    assert get(client, other_researcher, survey, "?confidence=7").status_code == 404


def test_anonymous_gets_403_json(client, survey):
    response = client.get(reverse("aggregation:api-estimates", args=[survey.slug]))
    assert response.status_code == 403
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["field"] == "request"


def test_it_answers_409_for_a_configuration_it_cannot_read(client, owner, survey):
    survey.questions.filter(order=2).update(epsilon=50.0)
    response = get(client, owner, survey)
    assert response.status_code == 409 and response.json()["error"]["field"] == "survey"


def test_its_q_equivalent_is_that_of_the_effective_epsilon_not_the_configured_one(
        client, owner, every_mechanism_survey):
    data = get(client, owner, every_mechanism_survey).json()
    by_order = {q["order"]: q["mechanism"] for q in data["questions"]}
    for order, epsilon in INEXACT_BITFLIP_EPSILONS.items():
        assert_q_of_the_effective_epsilon(by_order[order]["q_equivalent"], ldp.BitFlip(epsilon))
    assert by_order[1]["q_equivalent"] == pytest.approx(0.3, abs=4 * math.ulp(0.3))
    assert [by_order[order]["q_equivalent"] for order in (5, 6, 7)] == [None, None, None]


def test_it_is_never_cached(client, owner, survey):
    cache_control = {part.strip() for part in get(client, owner, survey)["Cache-Control"].split(",")}
    assert {"private", "no-store", "no-cache", "max-age=0"} <= cache_control


def test_with_no_responses_every_kind_answers_with_nulls_not_errors(client, owner, kinds_survey):
    data = get(client, owner, kinds_survey).json()
    multi, onebit, dlaplace, ages, gamble = data["questions"]
    assert [q["n"] for q in data["questions"]] == [0] * 5
    assert onebit["mean"] == {"mean": None, "std_error": None, "ci_low": 0.0, "ci_high": 100.0, "confidence": 0.95,
                              "n": 0}
    assert gamble["mean"]["mean"] is None and multi["mean"] is None
    assert all(o["estimate"] is None for o in multi["options"])


def test_each_kind_has_its_fractions_or_its_mean(client, owner, kinds_survey):
    builder.simulate_responses(kinds_survey, 500, {}, seed=31)
    multi, onebit, dlaplace, ages, gamble = get(client, owner, kinds_survey).json()["questions"]
    assert [q["kind"] for q in (multi, onebit, dlaplace, ages, gamble)] == [
        "multi_select", "numeric", "numeric", "numeric", "ordinal"]
    assert len(multi["options"]) == 4 and multi["mean"] is None
    assert all(o["post_processed"]["simplex"] is None for o in multi["options"])  # subsets: no simplex
    assert onebit["options"] == [] and dlaplace["options"] == [] and onebit["mean"]["n"] == 500
    assert onebit["scale"] == {"lo": "0", "hi": "100", "step": "1"}
    assert [o["label"] for o in ages["options"]] == ["0 to 17", "18 to 34", "35 to 64", "65 to 120"]
    assert ages["bins"][1]["lower"] == "18" and ages["mean"] is None
    assert gamble["scores"] == ["1", "2", "3", None] and 1 <= gamble["mean"]["mean"] <= 3
    assert dlaplace["mechanism"]["name"] == "dlaplace" and dlaplace["mechanism"]["encoding"] == "integer"


def test_a_means_planner_speaks_in_the_questions_units(client, owner, kinds_survey):
    data = get(client, owner, kinds_survey, "?margin=0.1").json()["questions"]
    assert data[1]["planner"]["margin"] == pytest.approx(10.0)  # 10% of 0..100
    assert data[2]["planner"]["margin"] == pytest.approx(1.0)  # 10% of 0..10
    assert data[1]["planner"]["respondents_needed"] == ldp.mean_respondents_needed(
        ldp.OneBitMean(1.0, "0", "100", "1"), 10.0, 0.95)
    assert data[0]["planner"]["margin"] == 0.1  # fractions as before


def test_a_mean_ignores_the_bonferroni_share_of_fractions(client, owner, kinds_survey):
    builder.simulate_responses(kinds_survey, 100, {}, seed=32)
    data = get(client, owner, kinds_survey, "?simultaneous=on&confidence=0.9").json()["questions"]
    assert data[1]["interval_level"] == 0.9 and data[1]["mean"]["confidence"] == 0.9
    assert data[3]["interval_level"] == pytest.approx(1 - 0.1 / 4)


def test_a_researcher_not_assigned_gets_404_and_anonymous_403(client, other_researcher, kinds_survey):
    assert get(client, other_researcher, kinds_survey).status_code == 404
    client.logout()
    assert client.get(reverse("aggregation:api-estimates", args=[kinds_survey.slug])).status_code == 403

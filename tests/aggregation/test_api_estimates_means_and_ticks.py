"""GET /api/v1/surveys/<slug>/estimates/ for multi-select, numeric and ordinal questions: per-option fractions where a
kind has options, a mean where it has one (a numeric mean; an ordinal mean score), the scale, bins and scores, and a
planner whose margin on a mean is in the question's units."""

import pytest
from django.urls import reverse

import ldp
from surveys.collection import builder


def get(client, user, survey, query=""):
    client.force_login(user)
    return client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + query)


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

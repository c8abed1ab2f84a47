"""Weighted cross-tabs (surveys.aggregation.relating.crosstab with weighted=on) through the cross-tab API: the responses
raked to the survey's population margins, the joint and conditional fractions under those weights.

The expected figures come from the very arrays the responses were written from (response i has report i of
every question), raked and estimated by ldp (`ldp.weighting.raking`, `ldp.weighting.joint`; ldp's own tests check those
against R's survey package): what the app must add is reading each question's reports of the weighted
responses, as the cross-tab reads them, in the weights' order."""

import json

import numpy as np
import pytest
from django.urls import reverse

from ldp import Direct, JointCounts
from ldp.weighting.association import weighted_independence
from ldp.weighting.joint import weighted_conditional, weighted_joint
from ldp.weighting.raking import margin, rake
from tests.aggregation.support import add_responses
from tests.aggregation.weighting_support import AGE, REGION, N, answer, enter, ids, make_ages_survey, make_survey


@pytest.fixture
def survey(db, owner):
    return make_survey(owner)


@pytest.fixture
def answered(survey):
    return answer(survey)


def api(client, survey, query):
    response = client.get(reverse("aggregation:api-crosstab", args=[survey.slug]) + query)
    return response.status_code, json.loads(response.content)


def design_of(answered):
    return rake([margin("age", answered[2], dict(enumerate(AGE.values()))),
                 margin("region", answered[3], dict(enumerate(REGION.values())))], cap=5.0)


def lists(found):
    """An ldp result as its JSON would be: tuples as lists, non-finite numbers as null."""
    if isinstance(found, (tuple, list)):
        return [lists(x) for x in found]
    if isinstance(found, float) and not np.isfinite(found):
        return None
    return found


def close(got, expected):
    if isinstance(expected, dict):
        assert isinstance(got, dict) and set(got) == set(expected)
        for key, value in expected.items():
            close(got[key], value)
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            close(g, e)
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-10, abs=1e-13)
    else:
        assert got == expected


@pytest.mark.parametrize("pair", [(1, 4), (4, 5), (2, 5), (5, 1)], ids=["qrr-krr", "krr-sue", "direct-sue",
                                                                         "sue-qrr"])
def test_a_weighted_cross_tab_is_every_fraction_under_the_raked_weights(owner_client, survey, answered, pair):
    enter(survey, 2, AGE)
    enter(survey, 3, REGION, source="Regional register")
    q = ids(survey)
    a, b = pair
    status, body = api(owner_client, survey, f"?a={q[a]}&b={q[b]}&weighted=true&confidence=0.9")
    assert status == 200, body
    design = design_of(answered)
    ma, mb = (survey.questions.get(order=order).mechanism() for order in pair)
    ra, rb = answered[a], answered[b]
    joint = weighted_joint(ma, ra, mb, rb, design, confidence=0.9)
    expected = {key: lists(value) for key, value in joint.to_dict().items() if key not in ("n", "confidence")}
    close(body["joint"], expected)
    for given, key in (("a", "b_given_a"), ("b", "a_given_b")):
        found = weighted_conditional(ma, ra, mb, rb, design, given=given, confidence=0.9).to_dict()
        close(body[key], {k: lists(v) for k, v in found.items() if k not in ("given", "confidence")})
    assert body["n"] == N and body["weights"]["n"] == N and body["weights"]["left_out"] == 0
    assert body["weights"]["margins"] == [{"question": "Age band?", "source": "Census 2021", "shares": AGE},
                                          {"question": "Region?", "source": "Regional register", "shares": REGION}]
    assert body["weights"]["effective_n"] == pytest.approx(design.effective_n, rel=1e-12)
    # The counts and the effect size are the reports' own, unweighted: what the unweighted cross-tab shows; the
    # test is Rao and Scott's on the weighted reports.
    plain = api(owner_client, survey, f"?a={q[a]}&b={q[b]}&confidence=0.9")[1]
    counts = JointCounts.from_counts(ma, mb, body["counts"]["pairs"], N, body["counts"]["a"],
                                     body["counts"]["b"])
    test = weighted_independence(ma, ra, mb, rb, design, counts)
    close(body["independence"], {**{key: getattr(test, key) for key in (
        "method", "p_value", "statistic", "df", "denominator_df", "tables", "phi_squared", "cramers_v")},
        "alpha": 0.05, "related": test.p_value < 0.05, "statement": body["independence"]["statement"]})
    assert body["counts"] == plain["counts"] and plain["independence"]["method"] == "pearson"
    assert {k: v for k, v in body["independence"].items() if k in ("phi_squared", "cramers_v", "tables")} == {
        k: v for k, v in plain["independence"].items() if k in ("phi_squared", "cramers_v", "tables")}
    assert plain["weights"] is None and plain["joint"] != body["joint"]
    assert plain["independence"]["statistic"] != body["independence"]["statistic"]


def test_the_weighted_sample_has_the_population_margins_in_a_table_of_two_margin_questions(
        owner_client, survey, answered):
    """Age band by region under weights raked to both: the joint table's row and column sums are the margins."""
    enter(survey, 2, AGE)
    enter(survey, 3, REGION)
    q = ids(survey)
    body = api(owner_client, survey, f"?a={q[2]}&b={q[3]}&weighted=on")[1]
    assert body["joint"]["row_sums"] == pytest.approx(list(AGE.values()), abs=1e-9)
    assert body["joint"]["column_sums"] == pytest.approx(list(REGION.values()), abs=1e-9)


def test_a_direct_number_is_related_weighted_in_its_bins(owner_client, owner):
    made = make_ages_survey(owner, "ages-xtab")
    answered = {q.order: v for q, v in add_responses(made, N, seed=5, truth={1: [0.5, 0.3, 0.2]}).items()}
    enter(made, 1, AGE)
    q = ids(made)
    status, body = api(owner_client, made, f"?a={q[1]}&b={q[2]}&weighted=1")
    assert status == 200, body
    design = rake([margin("age", answered[1], dict(enumerate(AGE.values())))], cap=5.0)
    bins = np.searchsorted([35 - 18, 65 - 18], np.asarray(answered[2]), side="right")  # grid index -> bin
    joint = weighted_joint(Direct(3), answered[1], Direct(3), bins, design)
    close(body["joint"]["estimate"], lists(joint.estimate))
    close(body["joint"]["std_error"], lists(joint.std_error))


def test_it_refuses_a_weighted_cross_tab_of_a_survey_without_margins(owner_client, survey, answered):
    q = ids(survey)
    status, body = api(owner_client, survey, f"?a={q[1]}&b={q[4]}&weighted=true")
    assert status == 400 and body["error"]["code"] == "bad_parameter" and body["error"]["field"] == "weighted"
    assert "no population margins" in body["error"]["reason"]


def test_it_refuses_a_weighted_cross_tab_the_responses_cannot_be_raked_for(owner_client, survey):
    add_responses(survey, 60, seed=3, truth={2: [0.5, 0.5, 0.0]})
    enter(survey, 2, AGE)
    q = ids(survey)
    status, body = api(owner_client, survey, f"?a={q[1]}&b={q[4]}&weighted=true")
    assert status == 409 and body["error"] == {
        "code": "unavailable", "field": "weighted",
        "reason": "Age band?: no respondents in the categories ['55+'], which have a population share"}


def test_a_weighted_cross_tab_is_made_within_the_request_up_to_the_limit_and_refused_past_it(
        owner_client, survey, answered, settings):
    enter(survey, 2, AGE)
    q = ids(survey)
    query = f"?a={q[1]}&b={q[4]}&weighted=true"
    settings.WEIGHT_NOW_VALUES = 3 * N  # N responses' answers to three questions (the margin, A, B): the limit
    assert api(owner_client, survey, query)[0] == 200
    settings.WEIGHT_NOW_VALUES = 3 * N - 1
    status, body = api(owner_client, survey, query)
    assert status == 409 and body["error"] == {
        "code": "unavailable", "field": "weighted",
        "reason": f"{N} responses are too many to weight within a request with 3 questions' answers (at most "
                  f"{3 * N - 1:,} answers are read); ask for it unweighted, or for fewer questions (a cross-tab)."}


def test_a_randomized_mean_is_still_refused_weighted(owner_client, survey, answered):
    enter(survey, 2, AGE)
    q = ids(survey)
    status, body = api(owner_client, survey, f"?a={q[6]}&b={q[4]}&weighted=true")
    assert status == 400 and body["error"]["field"] == "a" and "asked for its mean" in body["error"]["reason"]


def test_a_bad_weighted_flag_is_refused_and_strangers_see_nothing(client, owner_client, other_researcher, survey,
                                                                    answered):
    enter(survey, 2, AGE)
    q = ids(survey)
    status, body = api(owner_client, survey, f"?a={q[1]}&b={q[4]}&weighted=maybe")
    assert status == 400 and body["error"]["field"] == "weighted"
    client.force_login(other_researcher)
    assert api(client, survey, f"?a={q[1]}&b={q[4]}&weighted=true")[0] == 404

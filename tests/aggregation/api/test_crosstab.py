"""GET /api/v1/surveys/<slug>/crosstab/?a=&b=: the cross-tab service's numbers as JSON."""

import math

import pytest
from django.urls import reverse

from surveys.aggregation.params import ResultOptions
from surveys.aggregation.relating import crosstab
from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from tests.aggregation.support import add_responses


def url(survey, query=""):
    return reverse("aggregation:api-crosstab", args=[survey.slug]) + query


def get(client, user, survey, query=""):
    if user is not None:
        client.force_login(user)
    return client.get(url(survey, query))


def ids(survey):
    return {q.order: q.pk for q in survey.ordered_questions()}


def same(got, expected):
    """JSON lists against ldp's tuples: nulls where the value is not finite."""
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            same(g, e)
    elif isinstance(expected, float) and not math.isfinite(expected):
        assert got is None
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.slow
def test_its_numbers_are_the_services(client, owner, survey):
    add_responses(survey, 200, seed=31)
    q = ids(survey)
    data = get(client, owner, survey, f"?a={q[3]}&b={q[4]}&confidence=0.9&margin=0.1").json()
    table = crosstab.crosstab(survey, ResultOptions(a=q[3], b=q[4], confidence=0.9, margin=0.1))
    assert (data["slug"], data["confidence"], data["n"]) == (survey.slug, 0.9, 200)
    assert (data["a"]["id"], data["b"]["id"]) == (q[3], q[4])
    assert data["a"]["options"] == ["Never", "Sometimes", "Often"] and data["b"]["options"] == list("ABCD")
    assert data["a"]["mechanism"]["name"] == "krr" and data["b"]["mechanism"]["name"] == "oue"
    assert data["counts"] == {"pairs": table.counts.pairs.tolist(), "a": table.counts.a_counts.tolist(),
                              "b": table.counts.b_counts.tolist()}
    for key in ("estimate", "std_error", "ci_low", "ci_high", "row_sums", "column_sums"):
        same(data["joint"][key], getattr(table.joint, key))
    for name in ("b_given_a", "a_given_b"):
        for key in ("estimate", "std_error", "ci_low", "ci_high"):
            same(data[name][key], getattr(getattr(table, name), key))
        assert data[name]["bounded"] == list(getattr(table, name).bounded)
    test = table.relation.test
    assert data["independence"] == {
        "method": "pearson", "p_value": test.p_value, "statistic": test.statistic, "df": test.df,
        "denominator_df": None, "tables": test.tables,
        "phi_squared": test.phi_squared, "cramers_v": test.cramers_v, "alpha": 0.05,
        "related": test.p_value < 0.05, "statement": table.relation.statement}
    assert data["planner"] == {"margin": 0.1, "respondents_needed": table.needed,
                               "still_needed": max(0, table.needed - 200), "enough": table.needed <= 200}


def test_rows_are_a_and_columns_b(client, owner, survey):
    add_responses(survey, 60, seed=32)
    q = ids(survey)
    one_three = get(client, owner, survey, f"?a={q[1]}&b={q[3]}").json()
    three_one = get(client, owner, survey, f"?a={q[3]}&b={q[1]}").json()
    assert [len(one_three["counts"]["pairs"]), len(one_three["counts"]["pairs"][0])] == [2, 3]
    assert three_one["counts"]["pairs"] == [list(row) for row in zip(*one_three["counts"]["pairs"], strict=True)]


def test_without_a_response_with_both_the_estimates_are_null(client, owner, survey):
    q = ids(survey)
    data = get(client, owner, survey, f"?a={q[1]}&b={q[2]}").json()
    assert data["n"] == 0
    assert [data[key] for key in ("counts", "joint", "b_given_a", "a_given_b", "independence")] == [None] * 5
    assert data["planner"]["respondents_needed"] > 0


@pytest.mark.parametrize("role,status", [("owner", 200), ("superuser", 200), ("other_researcher", 404),
                                         ("anonymous", 403)])
def test_access_as_the_estimates(client, request, survey, role, status):
    user = None if role == "anonymous" else request.getfixturevalue(role)
    q = ids(survey)
    response = get(client, user, survey, f"?a={q[1]}&b={q[2]}")
    assert response.status_code == status
    if status != 200:
        assert set(response.json()) == {"error"}


@pytest.mark.parametrize("query,field", [
    ("", "a"), ("?a={1}", "b"), ("?b={2}", "a"), ("?a={1}&b={1}", "b"), ("?a=999999&b={1}", "a"),
    ("?a={1}&b={theirs}", "b"), ("?a=x&b={2}", "a"), ("?a=0&b={2}", "a"), ("?a=-1&b={2}", "a"),
    ("?a={1}&b=1.5", "b"), ("?a={1}&a={1}&b={2}", "a"), ("?a={1}&b={2}&confidence=2", "confidence"),
    ("?a={1}&b={2}&margin=0", "margin"), ("?a={1}&b={2}&interval=exact", "interval"),
    ("?a={1}&b={2}&by={3}", "by"),
])
def test_bad_parameters_are_a_400_naming_the_parameter(client, owner, survey, query, field):
    theirs = builder.create_survey("twin", "Twin", [QuestionSpec("Cheated?", "qrr", q="0.5")]).questions.get().pk
    q = ids(survey)
    response = get(client, owner, survey, query.format(None, *[q[i] for i in range(1, 4)], theirs=theirs))
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_it_is_never_cached(client, owner, survey):
    first, second = ids(survey)[1], ids(survey)[2]
    cache_control = {part.strip() for part in get(client, owner, survey, f"?a={first}&b={second}")["Cache-Control"]
                     .split(",")}
    assert {"private", "no-store", "no-cache", "max-age=0"} <= cache_control

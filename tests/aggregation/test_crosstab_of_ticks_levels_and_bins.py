"""Relating answers with multi-select, numeric and ordinal questions: a multi-select's options (as its bits), an ordinal
question's levels and a numeric question's bins relate like any options; a numeric question asked for its mean has no
answers to put in a table, so a cross-tab or break-down by it is a 400 naming the parameter, and the dashboard's pickers
leave it out and say so."""

import re

import numpy as np
import pytest
from django.urls import reverse

from surveys.aggregation.params import BadParameter, ResultOptions
from surveys.aggregation.relating import crosstab
from surveys.collection import builder, plan
from surveys.collection.models import Report


@pytest.fixture
def answered(kinds_survey):
    builder.simulate_responses(kinds_survey, 400, {}, seed=71)
    return kinds_survey


def ids(survey):
    return {q.order: q.pk for q in survey.ordered_questions()}


def stored_pairs(survey, a, b):
    """The co-occurrence table counted in Python from the stored reports (independently of the service)."""
    questions = {q.id: q for q in plan.of(survey)}
    values = {}
    for response, question, value in Report.objects.values_list("response_id", "question_id", "value"):
        values.setdefault(response, {})[question] = value
    qa, qb = questions[a], questions[b]
    table = np.zeros((qa.mechanism.k, qb.mechanism.k), dtype=int)
    for row in values.values():
        for i in qa.mechanism.slots(row[a]):
            for j in qb.mechanism.slots(row[b]):
                table[i, j] += 1
    return table


@pytest.mark.parametrize("a, b", [(1, 5), (4, 5), (1, 4), (5, 1)])
def test_multi_select_ordinal_and_bins_relate_with_counts_from_the_stored_reports(answered, a, b):
    q = ids(answered)
    table = crosstab.crosstab(answered, ResultOptions(a=q[a], b=q[b]))
    assert table.n == 400 and np.array_equal(table.counts.pairs, stored_pairs(answered, q[a], q[b]))
    assert table.joint is not None and table.relation is not None and len(table.cells) == 16


@pytest.mark.parametrize("mean", [2, 3])
@pytest.mark.parametrize("name", ["a", "b"])
def test_a_numeric_mean_in_a_cross_tab_is_refused_naming_its_parameter(answered, mean, name):
    q = ids(answered)
    picked = {"a": q[1], "b": q[5], name: q[mean]}
    with pytest.raises(BadParameter) as error:
        crosstab.crosstab(answered, ResultOptions(**picked))
    assert error.value.field == name and "not available for this type of question" in error.value.reason


def test_the_api_and_the_export_answer_400_for_a_numeric_mean(client, owner, answered):
    client.force_login(owner)
    q = ids(answered)
    api = client.get(reverse("aggregation:api-crosstab", args=[answered.slug]) + f"?a={q[2]}&b={q[1]}")
    assert api.status_code == 400 and api.json()["error"]["field"] == "a"
    export = client.get(reverse("aggregation:export-crosstab", args=[answered.slug]) + f"?a={q[1]}&b={q[3]}")
    assert export.status_code == 400 and "not available" in export.content.decode()


def test_a_break_down_leaves_the_means_out_and_refuses_one_as_its_grouping(answered):
    q = ids(answered)
    down = crosstab.break_down(answered, ResultOptions(by=q[4]))
    assert [table.b.order for table in down.tables] == [1, 5]
    with pytest.raises(BadParameter, match="not available"):
        crosstab.break_down(answered, ResultOptions(by=q[2]))


@pytest.mark.slow
def test_the_pickers_offer_only_questions_that_relate_and_say_which_are_left_out(client, owner, answered):
    client.force_login(owner)
    html = client.get(reverse("aggregation:dashboard", args=[answered.slug])).content.decode()
    q = ids(answered)
    for name in ("a", "b", "by"):
        select = re.search(rf'<select name="{name}">(.*?)</select>', html, re.S).group(1)
        assert re.findall(r'<option value="(\d+)"', select) == [str(q[i]) for i in (1, 4, 5)]
    assert "Not available for numeric questions asked for their mean (question 2, 3)" in html


def test_the_dashboard_shows_a_refused_mean_as_a_400_with_the_reason(client, owner, answered):
    client.force_login(owner)
    q = ids(answered)
    response = client.get(reverse("aggregation:dashboard", args=[answered.slug]) + f"?a={q[1]}&b={q[3]}")
    assert response.status_code == 400 and "not available for this type of question" in response.content.decode()

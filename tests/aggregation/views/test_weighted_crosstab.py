"""The weighted cross-tab and break-down on the dashboard and in the cross-tab CSV: the same numbers as the
cross-tab API with weighted=on, the page saying to what they are weighted, and the same refusals."""

import csv
import io
import re

import pytest
from django.urls import reverse

from surveys.aggregation.exports import figure_tables
from surveys.aggregation.templatetags.results_format import percent
from tests.aggregation.support import add_responses
from tests.aggregation.weighting_support import AGE, REGION, N, answer, enter, ids, make_survey


@pytest.fixture
def survey(db, owner):
    return make_survey(owner)


@pytest.fixture
def answered(survey):
    return answer(survey)


def page(client, survey, query):
    """With pilot figures shown: these tables have fewer responses than the planner's."""
    return client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query + "&pilot=on")


def api(client, survey, query):
    return client.get(reverse("aggregation:api-crosstab", args=[survey.slug]) + query).json()


def export(client, survey, query):
    return client.get(reverse("aggregation:export-crosstab", args=[survey.slug]) + query)


def test_the_csv_has_the_weighted_numbers_of_the_api(owner_client, survey, answered):
    enter(survey, 2, AGE)
    enter(survey, 3, REGION)
    q = ids(survey)
    query = f"?a={q[4]}&b={q[5]}&confidence=0.9&weighted=on"
    response = export(owner_client, survey, query)
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    body = api(owner_client, survey, query)
    assert list(rows[0]) == figure_tables.CROSSTAB_COLUMNS and len(rows) == 3 * 3
    for row in rows:
        i, j = int(row["a_index"]), int(row["b_index"])
        assert int(row["count"]) == body["counts"]["pairs"][i][j] and int(row["n"]) == body["n"]
        for key in ("estimate", "std_error", "ci_low", "ci_high"):
            assert float(row[key]) == body["joint"][key][i][j]
            assert float(row[f"b_given_a_{key}".replace("_estimate", "")]) == body["b_given_a"][key][i][j]
            assert float(row[f"a_given_b_{key}".replace("_estimate", "")]) == body["a_given_b"][key][j][i]
        assert (int(row["weights_n"]), float(row["effective_n"])) == (body["weights"]["n"],
                                                                       body["weights"]["effective_n"])
    unweighted = list(csv.DictReader(io.StringIO(export(owner_client, survey, query[:-12]).content.decode())))
    assert {(r["weights_n"], r["effective_n"]) for r in unweighted} == {("", "")}
    assert [r["estimate"] for r in unweighted] != [r["estimate"] for r in rows]


def test_the_dashboard_shows_the_weighted_cross_tab_and_says_to_what(owner_client, survey, answered):
    enter(survey, 2, AGE)
    enter(survey, 3, REGION, source="Regional register")
    q = ids(survey)
    response = page(owner_client, survey, f"?a={q[1]}&b={q[4]}&weighted=on")
    assert response.status_code == 200
    html = response.content.decode()
    body = api(owner_client, survey, f"?a={q[1]}&b={q[4]}&weighted=on")
    joint = re.search(r'<table class="estimates joint">(.*?)</table>', html, re.S).group(1)
    cells = re.findall(r'<td class="num">([^<]*)<br><span class="note">([^ ]*) – ([^ ]*) ', joint)
    assert cells == [(percent(body["joint"]["estimate"][i][j]), percent(body["joint"]["ci_low"][i][j]),
                      percent(body["joint"]["ci_high"][i][j])) for i in range(2) for j in range(3)]
    given_a = re.findall(r'<table class="estimates conditional">(.*?)</table>', html, re.S)[0]
    assert re.findall(r'<td class="num">([^<]*)<br>', given_a) == [
        percent(body["b_given_a"]["estimate"][i][j]) for i in range(2) for j in range(3)]
    crosstab = re.search(r'<section class="crosstab".*?</section>', html, re.S).group(0)
    assert ('<p class="note weighted-relating">Weighted to the population margins: <strong>Age band?</strong> '
            '(Census 2021), <strong>Region?</strong> (Regional register). The shares and their intervals are '
            "weighted") in crosstab
    test = body["independence"]
    assert (f"(Rao–Scott F {test['statistic']:.2f} on {test['df']:.2f} and {test['denominator_df']:.0f} degrees of "
            "freedom, on the weighted randomized reports; tables tested: 1)") in crosstab
    assert "and so is the test of relation (Rao and Scott’s)" in crosstab
    assert "The cross-tabs and break-downs below are weighted too, with the same weights." in html
    # Its CSV and API links, and the pickers, keep the weighting.
    assert f'crosstab.csv?a={q[1]}&amp;b={q[4]}&amp;confidence=0.95&amp;margin=0.05&amp;weighted=on"' in html
    assert html.count('<input type="hidden" name="weighted" value="on">') == 3


def test_the_dashboard_breaks_down_every_question_under_the_weights(owner_client, survey, answered):
    enter(survey, 2, AGE)
    q = ids(survey)
    html = page(owner_client, survey, f"?by={q[3]}&weighted=on").content.decode()
    tables = re.findall(r'<table class="estimates break-down-table">(.*?)</table>', html, re.S)
    others = [1, 2, 4, 5]  # 6, a randomized mean, is left out
    assert len(tables) == len(others)
    for words, other in zip(tables, others, strict=True):
        body = api(owner_client, survey, f"?a={q[3]}&b={q[other]}&weighted=on")
        plain = api(owner_client, survey, f"?a={q[3]}&b={q[other]}")
        cond, k = body["b_given_a"], len(body["b"]["options"])
        shown = re.findall(r'<td class="num">([^<]*)<br><span class="note">([^<]*)</span>', words)
        assert shown == [(percent(cond["estimate"][i][j]),  # the estimate and its interval, as the API has them
                          f'{percent(cond["ci_low"][i][j])} – {percent(cond["ci_high"][i][j])}'
                          if cond["bounded"][i] else "not determined") for j in range(k) for i in range(2)]
        assert cond != plain["b_given_a"]
    section = re.search(r'<section class="break-down".*?</section>', html, re.S).group(0)
    assert "Weighted to the population margins: <strong>Age band?</strong> (Census 2021)." in section


def test_unweighted_tables_say_nothing_of_weights(owner_client, survey, answered):
    enter(survey, 2, AGE)
    q = ids(survey)
    html = page(owner_client, survey, f"?a={q[1]}&b={q[4]}&by={q[3]}").content.decode()
    assert 'class="note weighted-relating"' not in html
    assert '<input type="hidden" name="weighted"' not in html


def test_a_weighted_table_without_margins_is_refused_on_the_page_and_in_the_csv(owner_client, survey, answered):
    q = ids(survey)
    response = export(owner_client, survey, f"?a={q[1]}&b={q[4]}&weighted=on")
    assert response.status_code == 400 and response.content.decode().startswith(
        "weighted: This survey has no population margins to weight to")
    shown = page(owner_client, survey, f"?a={q[1]}&b={q[4]}&weighted=on")
    assert shown.status_code == 400 and 'id="crosstab"' not in shown.content.decode()


def test_a_weighted_csv_the_responses_cannot_be_raked_for_is_a_409(owner_client, survey):
    add_responses(survey, 60, seed=3, truth={2: [0.5, 0.5, 0.0]})
    enter(survey, 2, AGE)
    q = ids(survey)
    response = export(owner_client, survey, f"?a={q[1]}&b={q[4]}&weighted=on")
    assert response.status_code == 409 and "no respondents in the categories" in response.content.decode()


def test_a_weighted_break_down_is_counted_within_the_request_up_to_the_limit_and_refused_past_it(
        owner_client, survey, answered, settings):
    enter(survey, 2, AGE)
    q = ids(survey)
    every = len(q)  # the first weighted figures count every question's answers, the break-down's among them
    settings.WEIGHT_NOW_VALUES = every * N - 1
    refused = page(owner_client, survey, f"?by={q[3]}&weighted=on")
    assert refused.status_code == 409
    assert (f"{N} responses are too many to weight within a request with {every} questions&#x27; answers"
            in refused.content.decode())
    settings.WEIGHT_NOW_VALUES = every * N
    assert page(owner_client, survey, f"?by={q[3]}&weighted=on").status_code == 200
    settings.WEIGHT_NOW_VALUES = 1  # counted: kept running from then on, nothing more to read
    assert page(owner_client, survey, f"?by={q[3]}&weighted=on").status_code == 200

"""The dashboard's relating part (cross-tab picker, joint table, conditional bars, independence, planner,
break-down) and the cross-tab CSV export, against the service and the API."""

import csv
import io
import re

import pytest
from django.urls import reverse

from surveys.aggregation.exports import figure_tables
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.relating import crosstab
from surveys.aggregation.templatetags.results_format import percent
from tests.aggregation.support import add_responses


def ids(survey):
    return {q.order: q.pk for q in survey.ordered_questions()}


def dashboard(client, user, survey, query=""):
    """The dashboard with pilot figures shown: these surveys' tables have fewer responses than the planner's."""
    client.force_login(user)
    return client.get(reverse("aggregation:dashboard", args=[survey.slug]) + (query or "?") + "&pilot=on")


def test_the_picker_offers_every_question_for_a_b_and_by(client, owner, survey):
    html = dashboard(client, owner, survey).content.decode()
    q = ids(survey)
    for name in ("a", "b", "by"):
        select = re.search(rf'<select name="{name}">(.*?)</select>', html, re.S).group(1)
        assert re.findall(r'<option value="(\d+)"', select) == [str(q[i]) for i in range(1, 5)]
    assert 'id="crosstab"' not in html and 'id="break-down"' not in html  # nothing picked yet


def test_the_cross_tab_shows_the_joint_table_bars_test_and_planner(client, owner, survey):
    add_responses(survey, 150, seed=41)
    q = ids(survey)
    response = dashboard(client, owner, survey, f"?a={q[1]}&b={q[3]}")
    assert response.status_code == 200
    html = response.content.decode()
    table = crosstab.crosstab(survey, ResultOptions(a=q[1], b=q[3]))
    joint = re.search(r'<table class="estimates joint">(.*?)</table>', html, re.S).group(1)
    assert re.findall(r'<th scope="col" class="num">([^<]*)</th>', joint) == ["Never", "Sometimes", "Often"]
    assert re.findall(r'<th scope="row">([^<]*)</th>', joint) == ["No", "Yes"]
    for cell in table.cells:
        assert f"{percent(cell.joint[0])}<br>" in joint
        assert f"{percent(cell.joint[2])} – {percent(cell.joint[3])}" in joint
        assert f'<td class="num">{cell.count}</td>' in html
    svg = re.search(r'<svg class="chart conditional".*?</svg>', html, re.S).group(0)
    assert "<title id=" in svg and "<desc id=" in svg and "style=" not in svg
    assert svg.count('<rect class="bar"') == 2 * 3 and svg.count('<text class="group"') == 2
    assert table.relation.statement.replace("'", "&#x27;") in html
    assert f"you need {table.needed} responses answering both" in html
    assert f'href="/results/{survey.slug}/export/crosstab.csv?a={q[1]}&amp;b={q[3]}&amp;' in html
    # The picker keeps the choice; the options form keeps a and b.
    assert f'<option value="{q[3]}" selected>' in re.search(r'<select name="b">(.*?)</select>', html, re.S).group(1)
    assert html.count(f'<input type="hidden" name="a" value="{q[1]}">') == 2


def test_the_conditional_tables_show_both_directions(client, owner, survey):
    add_responses(survey, 150, seed=42)
    q = ids(survey)
    html = dashboard(client, owner, survey, f"?a={q[2]}&b={q[3]}").content.decode()
    table = crosstab.crosstab(survey, ResultOptions(a=q[2], b=q[3]))
    tables = re.findall(r'<table class="estimates conditional">(.*?)</table>', html, re.S)
    assert len(tables) == 2
    for cell in table.cells:
        for words, values in ((tables[0], cell.b_given_a), (tables[1], cell.a_given_b)):
            assert f"{percent(values[0])}<br>" in words
            assert (f"{percent(values[2])} – {percent(values[3])}" if values[4] else "not determined") in words


def test_a_refused_pair_is_a_400_with_the_reason_and_the_estimates_still_shown(client, owner, survey):
    q = ids(survey)
    response = dashboard(client, owner, survey, f"?a={q[1]}&b={q[1]}")
    assert response.status_code == 400
    html = response.content.decode()
    assert "The parameter “b” was not understood: must be a different question from a." in html
    assert 'class="question-results"' in html and 'id="crosstab"' not in html


def test_no_response_with_both_says_so(client, owner, survey):
    q = ids(survey)
    html = dashboard(client, owner, survey, f"?a={q[1]}&b={q[2]}").content.decode()
    assert "No response has answered both questions yet." in html and "chart conditional" not in html


def test_the_break_down_shows_every_other_question_within_the_groups(client, owner, survey):
    add_responses(survey, 120, seed=43)
    q = ids(survey)
    html = dashboard(client, owner, survey, f"?by={q[3]}").content.decode()
    found = crosstab.break_down(survey, ResultOptions(by=q[3]))
    tables = re.findall(r'<table class="estimates break-down-table">(.*?)</table>', html, re.S)
    assert len(tables) == 3
    for words, table in zip(tables, found.tables, strict=True):
        assert f"{table.b.order}. {table.b.text}" in words
        assert re.findall(r'<th scope="col" class="num">([^<]*)</th>', words) == ["Never", "Sometimes", "Often"]
        assert re.findall(r'<th scope="row">([^<]*)</th>', words) == list(table.b.options)
        for cell in table.cells:
            assert f"{percent(cell.b_given_a[0])}<br>" in words
    assert f'<option value="{q[3]}" selected>' in re.search(r'<select name="by">(.*?)</select>', html, re.S).group(1)


def export(client, user, survey, query):
    client.force_login(user)
    return client.get(reverse("aggregation:export-crosstab", args=[survey.slug]) + query)


def test_the_csv_has_every_cell_and_every_column_equals_the_api(client, owner, survey):
    add_responses(survey, 150, seed=44)
    q = ids(survey)
    query = f"?a={q[3]}&b={q[4]}&confidence=0.9&margin=0.2"
    response = export(client, owner, survey, query)
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert f"{survey.slug}-crosstab-q3-q4.csv" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0]) == figure_tables.CROSSTAB_COLUMNS
    api = client.get(reverse("aggregation:api-crosstab", args=[survey.slug]) + query).json()
    assert len(rows) == 3 * 4
    for row in rows:
        i, j = int(row["a_index"]), int(row["b_index"])
        assert (int(row["a_id"]), row["a_key"], int(row["b_id"]), row["b_key"]) == (q[3], "q3", q[4], "q4")
        assert (int(row["n"]), float(row["confidence"])) == (api["n"], api["confidence"])
        assert (row["a_label"], row["b_label"]) == (api["a"]["options"][i], api["b"]["options"][j])
        assert int(row["count"]) == api["counts"]["pairs"][i][j]
        for key in ("estimate", "std_error", "ci_low", "ci_high"):
            assert float(row[key]) == pytest.approx(api["joint"][key][i][j], rel=1e-12)
            assert _number(row[f"b_given_a_{key}".replace("_estimate", "")]) == _approx(api["b_given_a"][key][i][j])
            assert _number(row[f"a_given_b_{key}".replace("_estimate", "")]) == _approx(api["a_given_b"][key][j][i])
        assert row["b_given_a_bounded"] == str(api["b_given_a"]["bounded"][i]).lower()
        assert row["a_given_b_bounded"] == str(api["a_given_b"]["bounded"][j]).lower()


def _number(text):
    return None if text == "" else float(text)


def _approx(value):
    return None if value is None else pytest.approx(value, rel=1e-12)


def test_the_csv_refuses_bad_parameters_and_strangers(client, owner, other_researcher, survey):
    q = ids(survey)
    response = export(client, owner, survey, f"?a={q[1]}&b={q[1]}")
    assert response.status_code == 400 and b"b: must be a different question" in response.content
    assert export(client, other_researcher, survey, f"?a={q[1]}&b={q[2]}").status_code == 404
    empty = export(client, owner, survey, f"?a={q[1]}&b={q[2]}")
    assert empty.content.decode().splitlines() == [",".join(figure_tables.CROSSTAB_COLUMNS)]

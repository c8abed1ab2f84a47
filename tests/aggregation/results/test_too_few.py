"""The one rule for too few respondents (surveys.aggregation.results.too_few), wherever an estimate leaves the app:
the dashboard withholds a question's estimates below the planner's respondents; the estimates API and CSV,
the cross-tab API and CSV, and the dashboard's cross-tab and break-down give the figures with the rule's
flag and its reason. Never a figure below the planner without the warning.

The survey (two_questions in conftest): a 3-option k-RR question (eps 2) and a direct one, answered by the
same responses; with fixed-n Wilson intervals the k-RR question needs more respondents than the direct one,
so one count of responses puts the first just short of (or exactly at) its planner while the second has enough.
"""

import csv
import io

import pytest
from django.urls import reverse

import ldp
from surveys.aggregation.results import too_few
from surveys.aggregation.templatetags.results_format import level, points
from surveys.collection import plan
from tests.aggregation.support import add_responses

MARGIN = 0.08  # the planner asks for 325 respondents for the k-RR question, 151 for the direct one
WILSON = f"?interval=wilson&margin={MARGIN}"


def needed(survey):
    krr, direct = plan.of(survey).questions
    return ldp.respondents_needed(krr.mechanism, MARGIN), ldp.respondents_needed(direct.mechanism, MARGIN)


def question_warning(n, need):
    return (f"Too few respondents: {n} of the {need} needed for {points(MARGIN)} at 95%. The randomization "
            "dominates: an estimate can lie far from the truth and its interval span almost everything.")


def crosstab_warning(n, need, margin):
    return (f"Too few responses answering both: {n} of the {need} needed for {points(margin)} on every cell at "
            "95%. The randomization of two answers at once dominates: these estimates can lie far from the truth "
            "and their intervals are wide.")


def get(client, owner, name, survey, query):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:{name}", args=[survey.slug]) + query)
    assert response.status_code == 200
    return response


def test_the_rule_is_too_few_below_the_planner_and_enough_from_it():
    assert [too_few.too_few(n, 385) for n in (0, 384, 385, 386)] == [True, True, False, False]
    assert too_few.question_warning(385, 385, "±5.0 points", "95%") is None
    assert too_few.crosstab_warning(385, 385, "±5.0 points", "95%") is None
    assert too_few.question_warning(384, 385, "±5.0 points", "95%") == question_warning(384, 385).replace(
        points(MARGIN), "±5.0 points")


@pytest.mark.parametrize("short", [1, 0], ids=["one-short", "exactly-enough"])
def test_the_api_gives_every_estimate_with_the_rules_flag_and_reason(client, owner, two_questions, short):
    need_krr, need_direct = needed(two_questions)
    assert need_direct < need_krr - 1
    n = need_krr - short
    add_responses(two_questions, n, seed=3)
    api = get(client, owner, "api-estimates", two_questions, WILSON).json()
    found = [(q["key"], q["n"], q["planner"]["respondents_needed"], q["planner"]["enough"], q["too_few"],
              q["warning"], all(o["estimate"] is not None for o in q["options"])) for q in api["questions"]]
    assert found == [
        ("q1", n, need_krr, not short, bool(short), question_warning(n, need_krr) if short else None, True),
        ("q2", n, need_direct, True, False, None, True),
    ]
    # The dashboard withholds exactly what the API flags.
    html = get(client, owner, "dashboard", two_questions, WILSON).content.decode()
    assert html.count('class="notice early"') == short
    assert html.count('<table class="estimates">') == 2 - short


@pytest.mark.parametrize("short", [1, 0], ids=["one-short", "exactly-enough"])
def test_every_row_of_the_estimates_csv_carries_its_questions_rule(client, owner, two_questions, short):
    need_krr, need_direct = needed(two_questions)
    n = need_krr - short
    add_responses(two_questions, n, seed=4)
    body = get(client, owner, "export-estimates", two_questions, WILSON).content.decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    warning = question_warning(n, need_krr) if short else ""
    assert [(r["question_key"], r["option_label"], r["respondents_needed"], r["too_few"], r["warning"],
             r["estimate"] != "") for r in rows] == [
        *(("q1", label, str(need_krr), str(bool(short)).lower(), warning, True) for label in ("Red", "Green", "Blue")),
        *(("q2", label, str(need_direct), "false", "", True) for label in ("18-34", "35-54", "55+")),
    ]


@pytest.mark.parametrize("margin", [0.05, 0.5], ids=["too-few", "enough"])
def test_the_cross_tab_api_csv_page_and_break_down_give_the_figures_with_the_rule(client, owner, two_questions,
                                                                                    margin):
    add_responses(two_questions, 60, seed=5)
    krr, direct = plan.of(two_questions).questions
    need = ldp.joint_respondents_needed(krr.mechanism, direct.mechanism, margin)
    assert (60 < need) == (margin == 0.05)
    warning = crosstab_warning(60, need, margin) if 60 < need else None
    pair = f"?a={krr.id}&b={direct.id}&margin={margin}"

    api = get(client, owner, "api-crosstab", two_questions, pair).json()
    assert (api["n"], api["planner"]["respondents_needed"], api["too_few"], api["warning"]) == (
        60, need, warning is not None, warning)
    assert api["joint"] is not None  # given, never withheld

    rows = list(csv.DictReader(io.StringIO(get(client, owner, "export-crosstab", two_questions, pair)
                                           .content.decode())))
    assert len(rows) == 9
    assert {(r["respondents_needed"], r["too_few"], r["warning"]) for r in rows} == {
        (str(need), str(warning is not None).lower(), warning or "")}

    # The dashboard: withheld below the planner, with the warning and how to see it; with pilot figures asked
    # for, shown and marked, with the same warning.
    html = get(client, owner, "dashboard", two_questions, pair).content.decode()
    pilot = get(client, owner, "dashboard", two_questions, pair + "&pilot=on").content.decode()
    assert (html.count(withheld(warning)), html.count("too-few"), html.count('<table class="estimates joint">')) == (
        (1, 1, 0) if warning else (0, 0, 1))
    assert (pilot.count(marked(warning)), pilot.count('<table class="estimates joint">')) == (
        (1, 1) if warning else (0, 1))

    # The break-down by the direct question: the k-RR question's table, with the same rule for the same pair.
    query = f"?by={direct.id}&margin={margin}"
    down = get(client, owner, "dashboard", two_questions, query).content.decode()
    shown = get(client, owner, "dashboard", two_questions, query + "&pilot=on").content.decode()
    assert ldp.joint_respondents_needed(direct.mechanism, krr.mechanism, margin) == need
    assert (down.count(withheld(warning)), down.count('<table class="estimates break-down-table">')) == (
        (1, 0) if warning else (0, 1))
    assert (shown.count(marked(warning)), shown.count('<table class="estimates break-down-table">')) == (
        (1, 1) if warning else (0, 1))


def withheld(warning):
    return (f'<p class="notice early too-few withheld" role="note">{warning} <strong>Not shown yet.</strong> '
            "Tick “Show pilot figures” above to see them, marked as such.</p>")


def marked(warning):
    return ('<p class="notice pilot too-few" role="note"><strong class="pilot-mark">Pilot figures</strong> '
            f"{warning}</p>")


def test_the_warning_follows_the_confidence_level(client, owner, two_questions):
    add_responses(two_questions, 20, seed=6)
    api = get(client, owner, "api-estimates", two_questions, f"?interval=wilson&margin={MARGIN}&confidence=0.9"
              ).json()
    krr = plan.of(two_questions).questions[0]
    need = ldp.respondents_needed(krr.mechanism, MARGIN, 0.9)
    assert api["questions"][0]["warning"] == question_warning(20, need).replace("at 95%", f"at {level(0.9)}")

"""Early results: below the planner's respondents for the chosen margin (per question, at the level of
the intervals shown) the dashboard shows a banner, the randomized counts and the planner instead of
estimates; from that number on it shows the figures. The threshold comes from ldp.respondents_needed."""

import numpy as np
import pytest
from django.urls import reverse

import ldp
from surveys.aggregation.params import DEFAULTS, ResultOptions
from surveys.aggregation.results import service as results
from surveys.aggregation.templatetags.results_format import level as level_text
from surveys.aggregation.templatetags.results_format import percent
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses

BANNER = 'class="notice early"'


@pytest.fixture
def one_question(db, owner):
    """An open survey with a single 3-option k-RR question (eps 2: the planner asks for hundreds, not thousands)."""
    survey = builder.create_survey("early", "Early", [
        QuestionSpec("Colour?", "krr", epsilon=2.0, options=["Red", "Green", "Blue"]),
    ], status=Survey.Status.OPEN, epsilon_budget=3.0)
    survey.researchers.add(owner)
    return survey


def html_of(client, owner, survey, query=""):
    client.force_login(owner)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)
    assert response.status_code == 200
    return response.content.decode()


def figures(result):
    """What the dashboard prints of each estimate: the unbiased value, its interval and its standard error."""
    return [text for row in result.rows for text in (
        f"{percent(row.estimate)}</td>", f"{percent(row.ci_low)} – {percent(row.ci_high)}",
        f"{percent(row.std_error)}</td>")]


def only_question(survey, options=DEFAULTS):
    return results.survey_results(survey, options).questions[0]


@pytest.mark.parametrize("query, options, level", [
    ("?interval=wilson", ResultOptions(interval="wilson"), 0.95),
    ("?confidence=0.9&interval=wilson&simultaneous=on&margin=0.08", ResultOptions(0.9, "wilson", True, 0.08),
     1 - 0.1 / 3),
], ids=["defaults", "bonferroni-level"])
def test_one_respondent_short_of_the_planner_shows_the_banner_and_no_estimate(client, owner, one_question,
                                                                               query, options, level):
    needed = ldp.respondents_needed(plan.of(one_question).questions[0].mechanism, options.margin, level)
    add_responses(one_question, needed - 1, seed=1)
    html = html_of(client, owner, one_question, query)
    result = only_question(one_question, options)
    assert (result.n, result.needed, result.enough) == (needed - 1, needed, False)
    margin = f"±{options.margin * 100:.1f} points"
    assert f"{needed - 1} of {needed} respondents needed for {margin} at {level_text(level)};" in html
    assert "estimates are not shown yet" in html and html.count(BANNER) == 1
    assert not any(text in html for text in figures(result))
    assert 'class="chart estimates"' not in html and "Std. error" not in html
    # The randomized counts and the planner stay.
    assert all(f'<td class="num">{row.count}</td>' in html for row in result.rows)
    assert f"you need {needed} respondents: 1 more" in html


@pytest.mark.parametrize("query, options", [
    ("?interval=wilson", ResultOptions(interval="wilson")),
    ("?confidence=0.9&interval=wilson&simultaneous=on&margin=0.08", ResultOptions(0.9, "wilson", True, 0.08)),
], ids=["defaults", "bonferroni-level"])
def test_the_planners_number_of_respondents_shows_the_figures(client, owner, one_question, query, options):
    result = only_question(one_question, options)
    add_responses(one_question, result.needed, seed=2)
    html = html_of(client, owner, one_question, query)
    result = only_question(one_question, options)
    assert result.n == result.needed and result.enough
    assert BANNER not in html and "estimates are not shown yet" not in html
    assert all(text in html for text in figures(result))
    assert html.count('class="chart estimates"') == 1


def test_the_threshold_is_per_question(client, owner, survey):
    add_responses(survey, 100, seed=3)
    html = html_of(client, owner, survey, "?margin=0.2&interval=wilson")
    found = results.survey_results(survey, ResultOptions(margin=0.2, interval="wilson"))
    shown = [result.enough for result in found.questions]
    assert shown == [result.n >= ldp.respondents_needed(result.mechanism, 0.2) for result in found.questions]
    assert True in shown and False in shown  # the yes/no questions are there, the choices are not
    assert html.count(BANNER) == shown.count(False)
    assert html.count('class="chart estimates"') == shown.count(True)
    for result in found.questions:
        assert all(text in html for text in figures(result)) == result.enough


def yes_no_survey(owner, yes, no):
    """One q-RR question (q = 0.5) with `yes` reports of Yes and `no` of No."""
    survey = builder.create_survey("yn", "Yes/no", [QuestionSpec("Yes?", "qrr", q="0.5")],
                                   status=Survey.Status.OPEN, epsilon_budget=3.0)
    survey.researchers.add(owner)
    question = plan.of(survey).questions[0]
    builder.write_responses(survey, {question.id: np.array([1] * yes + [0] * no)})
    return survey


def test_the_post_processed_columns_appear_only_where_they_differ(client, owner, db):
    # q = 0.5: a report is the truth with probability 3/4, so 15 Yes of 16 estimate Yes at 137.5%.
    survey = yes_no_survey(owner, 15, 1)
    result = only_question(survey, ResultOptions(margin=0.5, interval="wilson"))
    assert result.enough and result.rows[1].estimate > 1 and result.clipping_differs and result.simplex_differs
    html = html_of(client, owner, survey, "?margin=0.5&interval=wilson")
    assert "Clipped to 0–100%</th>" in html and "Sums to 100%</th>" in html
    assert f'<td class="num post">{percent(1.0)}</td>' in html
    # The chart leads with the clipped value, which lies inside its (clipped) interval.
    assert f"{percent(1.0)} ({percent(result.rows[1].ci_low)} to 100.0%)" in html


def test_no_post_processed_column_when_nothing_was_changed(client, owner, db):
    survey = yes_no_survey(owner, 8, 8)  # 50% each: inside [0, 1] and summing to 1
    result = only_question(survey, ResultOptions(margin=0.5, interval="wilson"))
    assert result.enough and not result.clipping_differs and not result.simplex_differs
    html = html_of(client, owner, survey, "?margin=0.5&interval=wilson")
    assert "Clipped to 0–100%</th>" not in html and "Sums to 100%</th>" not in html
    assert "for analysis" in html


def test_the_api_says_whether_a_question_has_enough_respondents(client, owner, one_question):
    needed = only_question(one_question).needed
    add_responses(one_question, needed - 1, seed=4)
    client.force_login(owner)
    url = reverse("aggregation:api-estimates", args=[one_question.slug])
    data = client.get(url).json()
    assert data["questions"][0]["planner"]["enough"] is False
    assert data["survey"]["planner"] == {"margin": 0.05, "respondents_needed": needed, "still_needed": 1}
    add_responses(one_question, 1, seed=5)
    data = client.get(url).json()
    assert data["questions"][0]["planner"]["enough"] is True
    assert data["survey"]["planner"]["still_needed"] == 0

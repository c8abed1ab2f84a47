"""Results of direct questions (not randomized): exact fractions with ordinary binomial (Wilson)
intervals, marked plainly in the API, the exports and the dashboard, and never an Infinity in JSON."""

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from ldp.stats.intervals import wilson
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses

N = 400


def strict_json(content):
    return json.loads(content, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))


@pytest.fixture
def answered(direct_survey):
    add_responses(direct_survey, N, seed=3, truth={2: [0.5, 0.3, 0.2], 4: [0.1, 0.2, 0.3, 0.4]})
    return direct_survey


@pytest.fixture
def researcher(client, owner):
    client.force_login(owner)
    return client


def get(client, name, survey, query=""):
    response = client.get(reverse(f"aggregation:{name}", args=[survey.slug]) + query)
    assert response.status_code == 200
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_the_estimates_api_gives_exact_fractions_with_wilson_intervals_and_null_epsilon(researcher, answered):
    body = strict_json(get(researcher, "api-estimates", answered, "?interval=wilson"))
    assert body["survey"]["epsilon_total"] == pytest.approx(plan.of(answered).epsilon_total, abs=1e-15)
    by_order = {q["order"]: q for q in body["questions"]}
    for order in (2, 4):
        direct = by_order[order]
        assert direct["mechanism"]["randomized"] is False and direct["mechanism"]["effective_epsilon"] is None
        assert direct["n"] == N
        level = direct["interval_level"]
        for option in direct["options"]:
            assert option["estimate"] == option["count"] / N  # the observed fraction, exactly
            low, high = wilson(option["count"], N, level)  # the ordinary binomial interval
            assert (option["ci_low"], option["ci_high"]) == pytest.approx((low, high), abs=1e-12)
        assert sum(option["count"] for option in direct["options"]) == N
    assert by_order[1]["mechanism"]["randomized"] is True
    assert by_order[1]["mechanism"]["effective_epsilon"] == pytest.approx(1.0986122886681098)


def test_the_codebook_marks_direct_questions_plainly(researcher, answered):
    book = strict_json(get(researcher, "export-codebook", answered))
    entries = {entry["order"]: entry for entry in book["questions"]}
    assert [entries[order]["randomized"] for order in (1, 2, 3, 4)] == [True, False, True, False]
    age = entries[2]
    assert age["mechanism"]["name"] == "direct" and age["mechanism"]["sampler"] == {"kind": "direct", "k": 3}
    assert age["mechanism"]["effective_epsilon"] is None and age["mechanism"]["randomized"] is False
    assert (age["mechanism"]["p"], age["mechanism"]["q_other"]) == (1.0, 0.0)
    assert "direct" in book["debiasing"] and book["survey"]["epsilon_total"] == pytest.approx(
        plan.of(answered).epsilon_total)


@pytest.mark.slow
def test_the_reports_json_parses_strictly_and_carries_the_answers_as_given(researcher, answered):
    exported = strict_json(get(researcher, "export-reports-json", answered))
    assert [q["randomized"] for q in exported["codebook"]["questions"]] == [True, False, True, False]
    ages = [response["reports"]["q2"] for response in exported["responses"]]
    assert len(ages) == N and set(ages) <= {0, 1, 2}


def test_the_estimates_csv_leaves_a_direct_questions_epsilon_empty(researcher, answered):
    rows = list(csv.DictReader(io.StringIO(get(researcher, "export-estimates", answered).decode())))
    direct = [row for row in rows if row["question_order"] in ("2", "4")]
    assert len(direct) == 7 and {row["mechanism"] for row in direct} == {"direct"}
    assert {row["effective_epsilon"] for row in direct} == {""}
    assert all(float(row["estimate"]) == int(row["count"]) / N for row in direct)
    randomized = [row for row in rows if row["question_order"] == "1"]
    assert float(randomized[0]["effective_epsilon"]) == pytest.approx(1.0986122886681098)
    assert "inf" not in get(researcher, "export-estimates", answered).decode().lower()


def test_the_dashboard_says_not_randomized_and_totals_the_randomized_questions(researcher, answered):
    html = get(researcher, "dashboard", answered, "?interval=wilson").decode()  # fixed-n: its planner's n is here
    assert html.count("not randomized (sent as given)") == 2
    assert html.count("Observed fractions (not randomized: answers sent as given)") == 2
    assert html.count("Answers as received (not randomized)") == 2
    assert "the sum over its randomized questions: the 2 questions sent as given, not randomized, are not in it" in html


def test_the_dashboard_says_one_direct_question_in_the_singular(researcher, owner):
    one = builder.create_survey("one", "One", [QuestionSpec("Cheated?", "qrr", q="0.5"),
                                               QuestionSpec("Age band?", "direct", options=["<30", "30+"])],
                                status=Survey.Status.OPEN)
    one.researchers.add(owner)
    add_responses(one, 10, seed=1)
    html = get(researcher, "dashboard", one).decode()
    assert "the sum over its randomized questions: the 1 question sent as given, not randomized, is not in it" in html
    assert not re.search(r"\binf\b|Infinity|∞", html)

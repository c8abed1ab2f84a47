"""Results of a number asked directly (direct_number: age in years, sent as given): its exact mean with a
Student t interval in the API, estimates.csv and the dashboard; break-downs in the bins the admin set; the
reports exports (CSV, JSON, codebook, .dta/.sav: the number itself, 35 for an age of 35, not its grid index 17)
and the generated R and Python scripts and `ldp analyze`, which read them and give the API's mean and interval."""

import csv
import io
import json
import math
from statistics import mean, stdev

import numpy as np
import pytest
from django.urls import reverse

from ldp.stats.intervals import t_value
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.exports.test_stata_spss import read_back
from tests.aggregation.scripts.test_analysis_scripts import fetch, run_ldp, run_python, run_r

# 60 ages on 18..99 by 1, as the respondents typed them; every bin (18-34, 35-64, 65-99) is used, edges included.
AGES = [18, 34, 35, 64, 65, 99] + [20 + (7 * j) % 70 for j in range(54)]
CHEATED = [j % 3 == 0 for j in range(60)]  # the randomized question's stored reports (1 = yes)


@pytest.fixture
def survey(db, owner):
    survey = builder.create_survey("ages", "Ages", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Your age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 64", "65 to 99"], edges=["18", "35", "65"]),
    ], status=Survey.Status.OPEN, epsilon_budget=2.0)
    survey.researchers.add(owner)
    cheated, age = plan.of(survey).questions
    builder.write_responses(survey, {cheated.id: [int(c) for c in CHEATED], age.id: [a - 18 for a in AGES]})
    return survey


@pytest.fixture
def researcher(client, owner):
    client.force_login(owner)
    return client


def content(response):
    assert response.status_code == 200, response.content[:500]
    return b"".join(response.streaming_content) if response.streaming else response.content


def api(client, survey, query="?interval=wilson"):
    return json.loads(content(client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + query)))


def expected_mean(confidence=0.95):
    se = stdev(AGES) / math.sqrt(len(AGES))
    half = t_value(confidence, len(AGES) - 1) * se
    return {"mean": mean(AGES), "std_error": se, "ci_low": mean(AGES) - half, "ci_high": mean(AGES) + half,
            "confidence": confidence, "n": len(AGES)}


def test_the_api_gives_the_exact_mean_with_a_t_interval_outside_the_budget(researcher, survey):
    body = api(researcher, survey)
    assert body["survey"]["epsilon_total"] == pytest.approx(math.log(3), abs=1e-15)
    age = body["questions"][1]
    assert age["mechanism"]["name"] == "direct_number" and age["mechanism"]["randomized"] is False
    assert age["mechanism"]["effective_epsilon"] is None and age["options"] == []
    assert age["mean"] == pytest.approx(expected_mean(), rel=1e-12)
    assert api(researcher, survey, "?confidence=0.9&interval=exact")["questions"][1]["mean"] == pytest.approx(
        expected_mean(0.9), rel=1e-12)


def test_the_open_surveys_default_keeps_the_t_interval(researcher, survey):
    assert api(researcher, survey, "")["questions"][1]["mean"] == pytest.approx(expected_mean(), rel=1e-12)


def test_estimates_csv_has_the_mean_row_with_its_t_interval(researcher, survey):
    rows = list(csv.DictReader(io.StringIO(content(researcher.get(
        reverse("aggregation:export-estimates", args=[survey.slug]) + "?interval=wilson")).decode())))
    row = rows[-1]
    want = expected_mean()
    assert {k: row[k] for k in ("question_key", "mechanism", "effective_epsilon", "p", "q_other", "n", "option_index",
                                "count", "confidence", "interval", "interval_level")} == {
        "question_key": "q2", "mechanism": "direct_number", "effective_epsilon": "", "p": "1.0", "q_other": "0.0",
        "n": "60", "option_index": "mean", "count": "60", "confidence": "0.95", "interval": "t",
        "interval_level": "0.95"}
    assert [float(row[k]) for k in ("estimate", "std_error", "ci_low", "ci_high")] == pytest.approx(
        [want["mean"], want["std_error"], want["ci_low"], want["ci_high"]], rel=1e-12)


def test_a_break_down_by_it_counts_each_answer_in_its_bin(researcher, survey):
    cheated, age = plan.of(survey).questions
    body = json.loads(content(researcher.get(reverse("aggregation:api-crosstab", args=[survey.slug])
                                             + f"?a={age.id}&b={cheated.id}")))
    bins = np.searchsorted([18, 35, 65], AGES, side="right") - 1
    pairs = np.zeros((3, 2), dtype=int)
    for b, c in zip(bins, CHEATED, strict=True):
        pairs[b, int(c)] += 1
    assert body["a"]["options"] == ["18 to 34", "35 to 64", "65 to 99"]
    assert body["counts"]["pairs"] == pairs.tolist() and body["n"] == 60
    assert body["counts"]["a"] == pairs.sum(axis=1).tolist()
    url = reverse("aggregation:dashboard", args=[survey.slug]) + f"?by={age.id}&pilot=on"  # 60: a pilot's figures
    html = content(researcher.get(url)).decode()
    assert "Every question by question 2" in html and "65 to 99" in html


def test_the_dashboard_shows_the_mean_as_sent_as_given(researcher, survey, settings):
    html = content(researcher.get(reverse("aggregation:dashboard", args=[survey.slug]) + "?margin=0.2")).decode()
    assert "Exact mean of the answers (not randomized: sent as given) with its 95% Student t interval" in html
    assert "its interval is Student's t with 59 degrees of freedom" in html
    assert "Noise" not in html.split("Your age in years?")[1]


def test_the_reports_exports_carry_the_number_itself(researcher, survey):
    """The age as typed (35), never its grid index (17), in the CSV and the JSON."""
    header, *rows = csv.reader(io.StringIO(content(researcher.get(
        reverse("aggregation:export-reports-csv", args=[survey.slug]))).decode()))
    assert header == ["response_id", "submitted_on", "mechanism_version", "q1", "q2"]
    assert sorted(tuple(row[3:]) for row in rows) == sorted(
        (str(int(c)), str(a)) for c, a in zip(CHEATED, AGES, strict=True))
    exported = json.loads(content(researcher.get(reverse("aggregation:export-reports-json", args=[survey.slug]))))
    assert sorted((r["reports"]["q1"], r["reports"]["q2"]) for r in exported["responses"]) == sorted(
        (int(c), a) for c, a in zip(CHEATED, AGES, strict=True))
    book = json.loads(content(researcher.get(reverse("aggregation:export-codebook", args=[survey.slug]))))
    entry = book["questions"][1]
    entry.pop("id")
    assert entry == {
        "key": "q2", "order": 2, "text": "Your age in years?", "kind": "numeric",
        "options": ["18 to 34", "35 to 64", "65 to 99"], "randomized": False,
        "mechanism": {"name": "direct_number", "label": "direct number (sent as given)",
                      "parameters": {"mechanism": "direct_number", "lo": "18", "hi": "99", "step": "1"},
                      "effective_epsilon": None, "q_equivalent": None, "p": 1.0, "q_other": 0.0, "p_exact": "1/1",
                      "q_other_exact": "0/1", "sampler": {"kind": "direct", "k": 82},
                      "sampler_rule": "No randomization: the browser sends the answer's grid index i in [0, steps] "
                                      "as given (k = steps + 1 values); the value is lo + i * step.",
                      "encoding": "integer", "lo": "18", "hi": "99", "step": "1", "steps": 81, "randomized": False},
        "report": {"encoding": "integer", "csv_columns": ["q2"],
                   "json": "the number as given (not randomized), from 18 to 99 by 1: the value lo + i * step of "
                           "its grid index i from 0 to 81, which the debiasing counts"},
        "scale": {"lo": "18", "hi": "99", "step": "1"},
        "bins": [{"label": "18 to 34", "lower": "18", "lower_index": 0},
                 {"label": "35 to 64", "lower": "35", "lower_index": 17},
                 {"label": "65 to 99", "lower": "65", "lower_index": 47}],
    }
    assert "direct_number" in book["debiasing"]


@pytest.mark.parametrize("extension", ["dta", "sav"])
def test_the_labelled_exports_give_the_numbers_labelled_with_their_scale(researcher, owner, survey, extension,
                                                                           tmp_path):
    frame, meta = read_back(researcher, owner, survey, extension, tmp_path)
    assert sorted(frame["q2"].tolist()) == sorted(float(a) for a in AGES)  # the ages, as doubles
    assert "q2" not in meta.variable_value_labels
    assert meta.column_names_to_labels["q2"].startswith("Your age in years? (the number, 18 to 99 by 1) [direct "
                                                        "answer")


def test_the_r_and_python_scripts_and_ldp_analyze_give_the_apis_mean_and_interval(researcher, survey, tmp_path):
    want = api(researcher, survey)["questions"][1]["mean"]
    folder = fetch(researcher, survey, tmp_path)
    runs = (("R", run_r(folder, survey.slug, [])[1]), ("Python", run_python(folder, survey.slug, [])[1]),
            ("ldp analyze", run_ldp(folder, f"{survey.slug}-reports.csv", [])),
            ("ldp analyze json", run_ldp(folder, f"{survey.slug}-reports.json", [])))
    for who, rows in runs:
        row = rows[-1]
        assert (row["question_key"], row["mechanism"], row["option_index"], row["interval"], row["n"]) == (
            "q2", "direct_number", "mean", "t", "60"), (who, row)
        got = [float(row[k]) for k in ("estimate", "std_error", "ci_low", "ci_high")]
        assert got == pytest.approx([want[k] for k in ("mean", "std_error", "ci_low", "ci_high")],
                                    rel=1e-12, abs=1e-12), who

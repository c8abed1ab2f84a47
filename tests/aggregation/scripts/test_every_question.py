"""The generated scripts and `python -m ldp analyze` on a survey of every kind, old and new (qrr, bitflip, krr,
sue, oue, direct, multi-select, 1-bit mean, discrete Laplace, numeric histogram, ordinal by krr, sue and oue,
with and without an unscored level): R's analysis.R, the Python analysis.py and `ldp analyze` (on the CSV and
on the JSON) give the estimates API's numbers to 1e-12, the per-option fractions and each numeric mean and
ordinal mean score (one more row, option_index "mean" or "mean_score"). The .dta and .sav read back with
each new kind's labels, and R's reader gives them too.
"""

import pytest
from django.urls import reverse

from ldp.offline import analyze
from surveys.collection import builder
from tests.aggregation.scripts.test_analysis_scripts import QUERIES, SCRIPT_COLUMNS, fetch, run_ldp, run_python, run_r

TOLERANCE = 1e-12
NUMBERS = ("estimate", "std_error", "ci_low", "ci_high")
MEAN_INTERVALS = {"onebit": "wilson", "dlaplace": "normal"}  # a mean score's: Student's t
TRUTH = {1: [0.9, 0.1], 3: [0.7, 0.2, 0.1], 7: [0.5, 0.3, 0.2, 0.05], 8: [0.0] * 81 + [0.05] * 20,
         9: [0.0] * 12 + [0.5, 0.3, 0.2] + [0.0] * 6, 11: [0.5, 0.3, 0.1, 0.1], 12: [0.1, 0.3, 0.6],
         13: [0.2, 0.5, 0.2, 0.1]}
MECHANISMS = {"qrr", "bitflip", "krr", "sue", "oue", "direct", "multiselect", "onebit", "dlaplace"}


def expected_rows(api: dict) -> list[tuple[dict, dict | None, object]]:
    """(question, option or None, option_index) in the order the scripts write their rows."""
    found = []
    for q in api["questions"]:
        found += [(q, option, option["index"]) for option in q["options"]]
        if q["mean"] is not None:
            found.append((q, None, "mean" if not q["options"] else "mean_score"))
    return found


def number(cell: str) -> float | None:
    return None if cell == "" else float(cell)


def assert_same_as_the_api(rows: list[dict], api: dict, who: str, mean_intervals: dict = MEAN_INTERVALS) -> None:
    expected = expected_rows(api)
    script = list(rows[0]) == SCRIPT_COLUMNS  # R and Python add the too-few rule's columns; `ldp analyze` does not
    assert script or list(rows[0]) == analyze.ROW_COLUMNS, who
    assert [(r["question_key"], r["option_index"]) for r in rows] == [
        (q["key"], str(index)) for q, _, index in expected], who
    for row, (question, option, index) in zip(rows, expected, strict=True):
        where = (who, question["key"], index)
        if script:
            assert (int(row["respondents_needed"]), row["too_few"]) == (
                question["planner"]["respondents_needed"], str(question["too_few"]).lower()), where
        assert int(row["n"]) == question["n"], where
        assert row["randomized"] == str(question["mechanism"]["randomized"]).lower(), where
        channel = question["mechanism"]
        assert (number(row["p"]), number(row["q_other"])) == (channel["p"], channel["q_other"]), where
        if option is None:  # a mean or a mean score: one interval at the confidence
            want = question["mean"]
            pairs = [(row[c], want[c if c != "estimate" else "mean"]) for c in NUMBERS]
            assert row["option_label"] == index and int(row["count"]) == question["n"], where
            assert float(row["interval_level"]) == pytest.approx(api["confidence"], abs=TOLERANCE), where
            assert row["interval"] == mean_intervals.get(channel["name"], "t"), where
        else:
            pairs = [(row[c], option[c]) for c in NUMBERS]
            assert row["option_label"] == option["label"] and int(row["count"]) == option["count"], where
            assert float(row["interval_level"]) == pytest.approx(question["interval_level"], abs=TOLERANCE), where
        for column, (cell, want) in zip(NUMBERS, pairs, strict=True):
            got = number(cell)
            assert (got is None) == (want is None), where + (column, got, want)
            if want is not None:
                assert abs(got - want) <= TOLERANCE, where + (column, got, want)


@pytest.fixture
def exported(client, owner, all_kinds_survey, tmp_path):
    """The survey of every kind with 400 responses (skewed answers), fetched as its researcher."""
    builder.simulate_responses(all_kinds_survey, 400, TRUTH, seed=5)
    client.force_login(owner)
    return all_kinds_survey, fetch(client, all_kinds_survey, tmp_path)


def estimates(client, survey, parameters=""):
    api = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + parameters).json()
    assert {q["mechanism"]["name"] for q in api["questions"]} == MECHANISMS
    assert {q["kind"] for q in api["questions"]} >= {"multi_select", "numeric", "ordinal"}
    return api


@pytest.mark.slow
@pytest.mark.parametrize("query", QUERIES, ids=list(QUERIES))
def test_ldp_analyze_gives_every_kinds_estimates_and_means_as_the_api(client, exported, query):
    survey, folder = exported
    parameters, flags = QUERIES[query]
    api = estimates(client, survey, parameters)
    assert sum(q["mean"] is not None for q in api["questions"]) == 5
    assert_same_as_the_api(run_ldp(folder, f"{survey.slug}-reports.csv", flags), api, "ldp analyze, CSV")
    assert_same_as_the_api(run_ldp(folder, f"{survey.slug}-reports.json", flags), api, "ldp analyze, JSON")


@pytest.mark.slow
def test_ldp_analyze_gives_an_open_surveys_intervals_valid_at_any_time_as_the_api(client, exported):
    """The API's default for an open survey; `--planned` is the planning size the API names. The means with a
    sequence (1-bit, discrete Laplace) say so; a mean score keeps its t interval, as on the dashboard."""
    survey, folder = exported
    api = estimates(client, survey)
    assert api["interval"] == "anytime" and api["planned"] > 400
    flags = ["--interval", "anytime", "--planned", str(api["planned"])]
    for name in (f"{survey.slug}-reports.csv", f"{survey.slug}-reports.json"):
        rows = run_ldp(folder, name, flags)
        assert_same_as_the_api(rows, api, f"ldp analyze, {name}", {"onebit": "anytime", "dlaplace": "anytime"})
        assert {r["interval"] for r in rows if r["option_index"] not in ("mean", "mean_score")} == {"anytime"}


@pytest.mark.slow
@pytest.mark.parametrize("query", QUERIES, ids=list(QUERIES))
def test_the_python_script_gives_every_kinds_estimates_and_means_as_the_api(client, exported, query):
    survey, folder = exported
    parameters, flags = QUERIES[query]
    api = estimates(client, survey, parameters)
    printed, rows = run_python(folder, survey.slug, flags)
    assert_same_as_the_api(rows, api, "Python")
    for question in api["questions"]:
        if question["mean"] is not None:
            assert f"{question['mean']['mean']:.4f}" in printed, question["key"]


@pytest.mark.slow
@pytest.mark.parametrize("query", QUERIES, ids=list(QUERIES))
def test_the_r_script_gives_every_kinds_estimates_and_means_as_the_api(client, exported, query):
    survey, folder = exported
    parameters, flags = QUERIES[query]
    api = estimates(client, survey, parameters)
    printed, rows = run_r(folder, survey.slug, flags)
    assert_same_as_the_api(rows, api, "R")
    for question in api["questions"]:
        if question["mean"] is not None:
            assert f"{question['mean']['mean']:.4f}" in printed, question["key"]


@pytest.mark.slow
@pytest.mark.parametrize("size", [0, 1])
def test_with_no_or_one_response_every_tool_agrees_on_what_is_undefined(client, owner, all_kinds_survey, tmp_path,
                                                                        size):
    if size:
        builder.simulate_responses(all_kinds_survey, size, TRUTH, seed=3)
    client.force_login(owner)
    folder = fetch(client, all_kinds_survey, tmp_path)
    api = estimates(client, all_kinds_survey, "?interval=wilson")
    assert_same_as_the_api(run_ldp(folder, "all-reports.csv", []), api, "ldp analyze")
    assert_same_as_the_api(run_python(folder, "all", [])[1], api, "Python")
    assert_same_as_the_api(run_r(folder, "all", [])[1], api, "R")

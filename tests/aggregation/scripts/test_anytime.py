"""The generated scripts' intervals valid however often you look (--interval anytime), run for real on the exports
of an open survey of every kind: the same confidence sequences as the dashboard's (surveys.aggregation.results.anytime),
the same planning size and respondents needed, the same estimates and standard errors.

Tolerance. ldp finds each end by regula falsi to about 1e-14 in ln(lambda0), with its own ln Gamma (absolute error
below 1e-11 in ln M); the scripts bisect to the last bit with the language's ln Gamma. An error d in ln M moves an
end by d / |d ln M / d lambda0|, which at the end is of order n (at least 10^2 here): below 1e-13, and the map to
the estimate divides by p - q (above 0.2 here). TOLERANCE = 1e-9 is ample (measured: 2e-11 for Python, 1.3e-11
for R). A discrete Laplace mean's ends are found the same way in its mixture's ln M, convex in the mean.
"""

import sys

import pytest
from django.urls import reverse

from surveys.collection import builder
from tests.aggregation.scripts.test_analysis_scripts import fetch, read_csv, rscript, run
from tests.aggregation.scripts.test_every_question import TRUTH

TOLERANCE = 1e-9
NUMBERS = ("estimate", "std_error", "ci_low", "ci_high")


@pytest.fixture
def exported(client, owner, all_kinds_survey, tmp_path):
    builder.simulate_responses(all_kinds_survey, 300, TRUTH, seed=27)
    client.force_login(owner)
    api = client.get(reverse("aggregation:api-estimates", args=[all_kinds_survey.slug])).json()
    assert api["interval"] == "anytime" and api["planned"] > 300  # an open survey's default
    return all_kinds_survey, fetch(client, all_kinds_survey, tmp_path), api


def expected_rows(api):
    """(key, index, interval, interval_level, respondents_needed, estimate, std_error, ci_low, ci_high) per row."""
    found = []
    for q in api["questions"]:
        head = (q["interval"], q["interval_level"], q["planner"]["respondents_needed"])
        for o in q["options"]:
            found.append((q["key"], str(o["index"]), *head, *(o[c] for c in NUMBERS)))
        if q["mean"] is not None:
            is_mean = not q["options"]
            interval = q["interval"] if is_mean else "t"
            level = q["interval_level"] if is_mean else q["mean"]["confidence"]
            found.append((q["key"], "mean" if is_mean else "mean_score", interval, level,
                          q["planner"]["respondents_needed"], *(q["mean"][c] for c in ("mean", *NUMBERS[1:]))))
    return found


def assert_same(rows, api, who):
    expected = expected_rows(api)
    assert [(r["question_key"], r["option_index"]) for r in rows] == [e[:2] for e in expected], who
    worst = 0.0
    for row, want in zip(rows, expected, strict=True):
        where = (who, *want[:2])
        assert (row["interval"], int(row["respondents_needed"])) == (want[2], want[4]), where
        assert float(row["interval_level"]) == pytest.approx(want[3], abs=1e-15), where
        for column, value in zip(NUMBERS, want[5:], strict=True):
            got = None if row[column] == "" else float(row[column])
            assert (got is None) == (value is None), where + (column,)
            if value is not None:
                worst = max(worst, abs(got - value))
                assert abs(got - value) <= TOLERANCE, where + (column, got, value)
    return worst


@pytest.mark.slow
def test_the_python_script_gives_the_dashboards_intervals_valid_at_any_time(exported):
    survey, folder, api = exported
    run([sys.executable, f"{survey.slug}-analysis.py", "--interval", "anytime", "--csv", "py.csv"], folder)
    worst = assert_same(read_csv(folder / "py.csv"), api, "Python")
    print(f"Python, anytime: largest difference {worst:.3g}")


@pytest.mark.slow
def test_the_r_script_gives_the_dashboards_intervals_valid_at_any_time(exported):
    survey, folder, api = exported
    run([rscript(), "--vanilla", f"{survey.slug}-analysis.R", f"{survey.slug}-reports.csv", "--interval", "anytime",
         "--csv", "r.csv"], folder)
    worst = assert_same(read_csv(folder / "r.csv"), api, "R")
    print(f"R, anytime: largest difference {worst:.3g}")


@pytest.mark.slow
def test_the_scripts_use_the_surveys_planned_size_at_any_confidence_and_margin(client, exported):
    survey, folder, _ = exported
    type(survey).objects.filter(pk=survey.pk).update(planned_size=1000, planned_confidence=0.9)
    api = client.get(reverse("aggregation:api-estimates", args=[survey.slug]),
                     {"confidence": "0.9", "margin": "0.5"}).json()
    assert api["planned"] == 1000
    (folder / "again").mkdir()
    folder = fetch(client, survey, folder / "again")
    assert "PLANNED = 1000  #" in (folder / f"{survey.slug}-analysis.py").read_text()
    run([sys.executable, f"{survey.slug}-analysis.py", "--interval", "anytime", "--confidence", "0.9", "--margin",
         "0.5", "--csv", "py.csv"], folder)
    rows = read_csv(folder / "py.csv")
    assert len(rows) == len(expected_rows(api))
    for row, want in zip(rows, expected_rows(api), strict=True):
        assert (row["question_key"], row["option_index"], row["interval"]) == want[:3]
        for column, value in zip(NUMBERS, want[5:], strict=True):  # the planner's figures differ off the defaults
            assert (row[column] == "") == (value is None)
            assert value is None or abs(float(row[column]) - value) <= TOLERANCE, (want[:2], column)


@pytest.mark.slow
def test_the_scripts_give_the_sequences_at_the_level_fixed_at_open_and_the_fixed_n_ones_at_confidence(client,
                                                                                                      exported):
    survey, folder, _ = exported
    type(survey).objects.filter(pk=survey.pk).update(planned_size=1000, planned_confidence=0.9)
    api = client.get(reverse("aggregation:api-estimates", args=[survey.slug])).json()  # asked at 95%
    assert (api["confidence"], api["sequence_confidence"], api["planned"]) == (0.95, 0.9, 1000)
    (folder / "at-90").mkdir()
    folder = fetch(client, survey, folder / "at-90")
    assert "SEQUENCE_CONFIDENCE = 0.9\n" in (folder / f"{survey.slug}-analysis.py").read_text()
    run([sys.executable, f"{survey.slug}-analysis.py", "--interval", "anytime", "--csv", "py.csv"], folder)
    run([rscript(), "--vanilla", f"{survey.slug}-analysis.R", f"{survey.slug}-reports.csv", "--interval", "anytime",
         "--csv", "r.csv"], folder)
    for name, who in (("py.csv", "Python"), ("r.csv", "R")):  # the planner at 95%, the sequences at 90%
        assert_same(read_csv(folder / name), api, who)
    run([sys.executable, f"{survey.slug}-analysis.py", "--confidence", "0.99", "--csv", "fixed.csv"], folder)
    fixed = client.get(reverse("aggregation:api-estimates", args=[survey.slug]),
                       {"confidence": "0.99", "interval": "wilson"}).json()
    assert {q["interval_level"] for q in fixed["questions"] if not q["options"]} == {0.99}  # the means at the box
    rows = read_csv(folder / "fixed.csv")
    assert len(rows) == len(expected_rows(fixed))
    for row, want in zip(rows, expected_rows(fixed), strict=True):  # the fixed-n intervals follow --confidence
        for column, value in zip(NUMBERS, want[5:], strict=True):
            assert value is None or abs(float(row[column]) - value) <= TOLERANCE, (want[:2], column)

"""The generated scripts' weighted figures (--weighted), run for real on the app's exports of a seeded survey with
two population margins: analysis.py rakes the responses itself (numpy) and analysis.R with R's survey package
(rake, then calibrate(calfun = "raking") and svymean), each debiasing through the channel; both give the weighted
estimates API's estimates, standard errors and intervals.

Tolerances. Python redoes the app's arithmetic (the same raking, stopped at the same point, the same regression
residuals): only the order of summations differs, PYTHON_TOLERANCE = 1e-12 (measured: 2e-15, and its weights equal
the export's column). R rakes with survey::rake until the cross-table of the margins changes by less than 1e-12 n
between rounds, the app until every weighted share is within 1e-10 of its target; calibrate(calfun = "raking") on
R's weights then gives svymean the same linearization variance as the app's (Deville and Sarndal 1992: the
residuals of the regression weighted by the raked weights). So the two differ only through the weights: off by at
most about 1e-10 relative (the app's stopping rule), a weighted mean moves by at most that times the spread of
its values (1 for a report fraction, 10 for the numeric means here), divided by p - q (0.26 at least here): about
4e-9. R_TOLERANCE = 1e-8 (measured: 6e-13, the weights 1.6e-12 apart). svymean on survey::rake's own design
(unweighted residuals, a different approximation) differs in the fifth digit and fails it, as does svymean
without the calibration (the variance of fixed weights).
"""

import subprocess
import sys

import pytest
from django.urls import reverse

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.scripts.test_analysis_scripts import fetch, read_csv, rscript, run
from tests.aggregation.support import add_responses
from tests.aggregation.weighting_support import AGE, REGION, SIX_QUESTIONS, enter

N = 600
PYTHON_TOLERANCE = 1e-12
R_TOLERANCE = 1e-8
NUMBERS = ("estimate", "std_error", "ci_low", "ci_high")


@pytest.fixture
def exported(db, owner, client, tmp_path):
    """1 qrr, 2 direct age band, 3 direct region, 4 krr, 5 sue, 6 ordinal by oue (every level scored), 7 a 1-bit
    mean, 8 discrete Laplace, 9 a direct number (its weighted mean's interval Student t on n - 1); too many young
    northerners; both margins entered; the exports fetched."""
    survey = builder.create_survey("weights", "Weights", [
        *SIX_QUESTIONS,
        QuestionSpec("Hours online?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "10", "1")),
        QuestionSpec("Change in mood?", "dlaplace", epsilon=2.0, kind="numeric", scale=("-5", "5", "0.5")),
        QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 99"], edges=["18", "35"]),
    ], status=Survey.Status.OPEN, epsilon_budget=30.0)
    survey.researchers.add(owner)
    add_responses(survey, N, seed=11, truth={2: [0.5, 0.3, 0.2], 3: [0.7, 0.3]})
    enter(survey, 2, AGE)
    enter(survey, 3, REGION, source="Regional register")
    client.force_login(owner)
    api = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + "?weighted=on").json()
    return survey, fetch(client, survey, tmp_path), api


def expected_rows(api):
    """The API's weighted figures as the scripts' rows: (key, option index, n, estimate, std_error, ci_low,
    ci_high), the options' rows then a mean or mean score."""
    found = []
    for q in api["questions"]:
        for o in q["options"]:
            found.append((q["key"], str(o["index"]), q["n"], *(o[c] for c in NUMBERS)))
        if q["mean"] is not None:
            index = "mean" if not q["options"] else "mean_score"
            found.append((q["key"], index, q["n"], *(q["mean"][c] for c in ("mean", *NUMBERS[1:]))))
    return found


def assert_same(rows, api, tolerance, who):
    expected = expected_rows(api)
    assert [(r["question_key"], r["option_index"], int(r["n"])) for r in rows] == [e[:3] for e in expected], who
    worst = 0.0
    for row, want in zip(rows, expected, strict=True):
        assert row["interval"] == "weighted", (who, want[:2])
        for column, value in zip(NUMBERS, want[3:], strict=True):
            got = float(row[column])
            worst = max(worst, abs(got - value))
            assert abs(got - value) <= tolerance, (who, want[:2], column, got, value)
    return worst


@pytest.mark.slow
def test_the_python_script_rakes_and_gives_the_weighted_apis_numbers(exported):
    survey, folder, api = exported
    assert api["weights"]["n"] == N and api["weights"]["design_effect"] > 1.1  # the weights matter here
    done = run([sys.executable, f"{survey.slug}-analysis.py", "--weighted", "--csv", "py.csv"], folder)
    worst = assert_same(read_csv(folder / "py.csv"), api, PYTHON_TOLERANCE, "Python")
    difference = float(done.stderr.split("weight column ")[1].split()[0])
    assert difference <= 1e-12, done.stderr  # its own raking gives the export's weights
    print(f"Python: largest difference from the API {worst:.3g}; {done.stderr.strip()}")


@pytest.mark.slow
def test_the_r_script_with_the_survey_package_gives_the_weighted_apis_numbers(exported):
    survey, folder, api = exported
    done = run([rscript(), "--vanilla", f"{survey.slug}-analysis.R", f"{survey.slug}-reports.csv", "--weighted",
                "--csv", "r.csv"], folder)
    worst = assert_same(read_csv(folder / "r.csv"), api, R_TOLERANCE, "R")
    assert "survey package" in done.stdout
    print(f"R: largest difference from the API {worst:.3g}; {done.stdout.splitlines()[0]}")


def test_the_scripts_refuse_to_weight_a_survey_without_margins(client, owner, every_kind_survey, tmp_path):
    client.force_login(owner)
    folder = fetch(client, every_kind_survey, tmp_path)
    done = subprocess.run([sys.executable, "kinds-analysis.py", "--weighted"], cwd=folder, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode != 0 and "no population margins" in done.stderr


@pytest.mark.slow
def test_r_reads_the_weight_column_as_numbers_with_its_label(exported):
    survey, folder, _ = exported
    script = (f'source("{survey.slug}-reports.R"); '
              'cat(class(reports$weight), attr(reports$weight, "label"), sep = "\\n"); '
              'cat(sprintf("%.17g", reports$weight), sep = "\\n")')
    done = run([rscript(), "--vanilla", "-e", script], folder)
    kind, label, *weights = done.stdout.splitlines()
    assert (kind, label) == ("numeric", "Raking weight to the population margins (missing: not weighted)")
    exported_weights = [row["weight"] for row in read_csv(folder / f"{survey.slug}-reports.csv")]
    assert [float(w) for w in weights] == [float(w) for w in exported_weights] and len(weights) == N

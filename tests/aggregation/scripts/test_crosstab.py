"""The generated scripts' cross-tabs (--crosstab A,B, weighted with --weighted), run for real on the app's exports of
a seeded survey with two population margins: each script's crosstab.csv (--csv) equals the app's crosstab.csv of the
same pair, column for column, and its test of relation (the columns the scripts add, named as the API names them)
the cross-tab API's "independence", on tables of a direct question by a direct number's bins with an empty cell, two
index questions, an index and a unary question, two unary questions and a direct grouping question, weighted and
not; the printed "Related?" line is the API's statement.

Tolerance: the bar is 1e-6 of the cell's standard error (the joint cell's for its estimate and interval, each
conditional's for its own; 1 / N where that is 0, the empty cell's), BAR. Python redoes the app's arithmetic from the
per-respondent score products (its own raking, the same regression residuals): measured about 1e-13 SE. R rakes
with survey::rake, stopped by another rule than the app's (its weights about 1e-12 apart here), and takes the
(co)variances from svymean's vcov on the calibrated design: measured in the module's printout, well inside the bar.
The test's figures within 1e-8 relative, TEST_TOLERANCE: measured 3e-12 (Python) and 2e-11 (R, svychisq on the
calibrated design; with the empty cell its own F from svymean's covariance under the app's rule, D the shares under
independence, since svychisq's diag(p) gives another F there: 9.62 on 3.47 df against the app's 9.50 on 3.17).

Planted bugs, each made in the generated script and run on the pair whose comparison fails naming it
(`assert_each_plant_caught`): in Python the raking term dropped from the linearization (the residuals of the mean
instead of the regression on the margins), every weighted joint interval at n instead of the cell's effective n, and
the conditional's covariance left out of Fieller's interval; in R svymean on the raked weights taken as fixed (no
calibration) and the intervals at n. In the test, in both: Rao and Scott's correction dropped (Delta the identity;
in R, with the empty cell, and svychisq's first-order "Chisq" for its F), Pearson's df off by one, Bonferroni
skipped. Each one moves some number by more than its bar.

Cost: 45 s of CPU on one core, measured with the six pairs, every plant and the refusals, most of it R (the weighted
runs loading the survey package); the survey's 500 responses and its exports are made once for the module. It is
marked slow, as the other script modules are.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
from django.test import Client, override_settings
from django.urls import reverse

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.scripts.test_analysis_scripts import fetch, read_csv, rscript, run
from tests.aggregation.support import randomized_reports, store
from tests.aggregation.weighting_support import AGE, REGION, SIX_QUESTIONS, enter
from tests.factories import make_user
from tests.urls_under_test import FAST_HASHERS, kept_rows

# Every test uses the database, if only through the module's fixture (pytest-django sets up the test database for
# the tests that say so).
pytestmark = pytest.mark.django_db
N = 500
BAR = 1e-6  # of the cell's standard error
TEST_TOLERANCE = 1e-8  # relative, on the test of relation's figures (the API's "independence")
# (A, B): direct age x the number's bins (an empty cell: nobody 55+ under 35), qrr x krr (two index questions),
# krr x sue (index x unary), sue x oue (two unary), direct age x qrr, a number asked directly (in its bins) x krr.
EMPTY_CELL = ("q2", "q7")  # first: a planted bug in the test with an empty cell shows at once
PAIRS = [EMPTY_CELL, ("q1", "q4"), ("q4", "q5"), ("q5", "q6"), ("q2", "q1"), ("q7", "q4")]
TEST_NUMBERS = ("statistic", "df", "denominator_df", "p_value", "phi_squared", "cramers_v", "alpha")
TEST_TEXT = ("method", "tables", "related")
NUMBERS = {"estimate": "std_error", "std_error": "std_error", "ci_low": "std_error", "ci_high": "std_error",
           **{f"{given}{part}": f"{given}_std_error" for given in ("b_given_a", "a_given_b")
              for part in ("", "_std_error", "_ci_low", "_ci_high")}}
TEXT = ["a_id", "a_key", "b_id", "b_key", "n", "a_index", "a_label", "b_index", "b_label", "count",
        "b_given_a_bounded", "a_given_b_bounded", "respondents_needed", "too_few", "weights_n"]


@pytest.fixture(scope="module")
def exported(django_db_setup, django_db_blocker, tmp_path_factory):
    """1 qrr, 2 direct age band, 3 direct region, 4 krr, 5 sue, 6 ordinal by oue, 7 a direct number in 3 bins;
    too many young northerners, and nobody 55+ under 35 years old; both margins entered; the exports fetched, and the
    app's crosstab.csv and cross-tab API of every pair, weighted and not. Made once for the module: its tests read
    the files only (every script run and plant works on them), so the rows are rolled back once they are written."""
    folder = tmp_path_factory.mktemp("pairs")
    # The settings tests/conftest.py's autouse fixtures give each test, which do not reach a module's fixture.
    within_the_request = override_settings(PASSWORD_HASHERS=FAST_HASHERS, EXPORT_BACKGROUND=False,
                                           EXPORT_DIR=folder / "prepared", SUBMISSION_RATE=None)
    with kept_rows(django_db_blocker), django_db_blocker.unblock(), within_the_request:
        return make_exports(make_user("owner"), Client(), folder)


def make_exports(owner, client, tmp_path):
    survey = builder.create_survey("pairs", "Pairs", [
        *SIX_QUESTIONS,
        QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 64", "65 to 99"], edges=["18", "35", "65"]),
    ], status=Survey.Status.OPEN, epsilon_budget=30.0)
    survey.researchers.add(owner)
    reports = randomized_reports(survey, N, seed=23, truth={2: [0.5, 0.3, 0.2], 3: [0.7, 0.3]})
    age, years = (reports[survey.questions.get(order=order)] for order in (2, 7))
    years[age == 2] = np.maximum(years[age == 2], 17)  # sent as given: 35 and over, an empty cell of age by bin
    store(survey, reports)
    enter(survey, 2, AGE)
    enter(survey, 3, REGION, source="Regional register")
    client.force_login(owner)
    folder = fetch(client, survey, tmp_path)
    ids = {f"q{q.order}": q.id for q in survey.questions.all()}
    for a, b in PAIRS:
        for weighted in (False, True):
            query = f"?a={ids[a]}&b={ids[b]}&confidence=0.9" + ("&weighted=on" if weighted else "")
            response = client.get(reverse("aggregation:export-crosstab", args=[survey.slug]) + query)
            assert response.status_code == 200
            (folder / app_name(a, b, weighted)).write_bytes(response.content)
            response = client.get(reverse("aggregation:api-crosstab", args=[survey.slug]) + query)
            assert response.status_code == 200
            (folder / app_name(a, b, weighted, "json")).write_bytes(response.content)
    return survey, folder


def app_name(a, b, weighted, kind="csv"):
    return f"app-{a}-{b}{'-weighted' if weighted else ''}.{kind}"


def app_test(folder, a, b, weighted):
    """The cross-tab API's test of relation ("independence") for the pair."""
    return json.loads((folder / app_name(a, b, weighted, "json")).read_text(encoding="utf-8"))["independence"]


def relation_gap(got, want, who):
    """The largest relative difference of the script's test figures (on every row of its CSV) from the API's
    "independence"; its method, tables and whether related equal. Returns it."""
    worst = 0.0
    for row in got:
        assert [row[c] for c in TEST_TEXT] == [str(want[c]).lower() for c in TEST_TEXT], (who, row, want)
        for column in TEST_NUMBERS:
            if want[column] is None:
                assert row[column] == "", (who, column)
                continue
            gap = abs(float(row[column]) - want[column]) / max(abs(want[column]), 1e-300)
            assert gap <= TEST_TOLERANCE, (who, column, row[column], want[column])
            worst = max(worst, gap)
    return worst


def flags(a, b, weighted, out):
    return ["--crosstab", f"{a},{b}", "--confidence", "0.9", "--csv", out, *(["--weighted"] if weighted else [])]


def worst_gap(got, want, who):
    """The largest difference from the app's crosstab.csv in units of the cell's standard error (of 1 / N where that
    is 0: an empty cell); every other column equal (the weights' effective n within 1e-9: R's raking stops by another
    rule)."""
    assert [r["a_index"] + r["b_index"] for r in got] == [r["a_index"] + r["b_index"] for r in want], who
    worst = 0.0
    for mine, theirs in zip(got, want, strict=True):
        assert [mine[c] for c in TEXT] == [theirs[c] for c in TEXT], who
        assert (mine["warning"] == "") == (theirs["warning"] == ""), who
        assert (mine["effective_n"] == "") == (theirs["effective_n"] == ""), who
        if theirs["effective_n"]:
            assert abs(float(mine["effective_n"]) - float(theirs["effective_n"])) <= 1e-9, who
        for column, se in NUMBERS.items():
            if theirs[column] == "":
                assert mine[column] == "", (who, column)
                continue
            unit = float(theirs[se]) or 1.0 / N  # an empty cell's SE is 0: one respondent's share instead
            gap = abs(float(mine[column]) - float(theirs[column])) / unit
            assert gap <= BAR, (who, mine["a_index"], mine["b_index"], column, mine[column], theirs[column])
            worst = max(worst, gap)
    return worst


def python_command(script, a, b, weighted, out):
    return [sys.executable, script, *flags(a, b, weighted, out)]


def r_command(script, a, b, weighted, out):
    return [rscript(), "--vanilla", script, "pairs-reports.csv", *flags(a, b, weighted, out)]


def compare(folder, command, script, a, b, weighted, who):
    """Run the script on the pair and compare its CSV with the app's: (worst gap of the cells in SE, worst relative
    gap of the test's figures, what it printed)."""
    out = f"out-{a}-{b}-{weighted}.csv"
    (folder / out).unlink(missing_ok=True)  # the folder is the module's: no other run's file read as this one's
    done = run(command(script, a, b, weighted, out), folder)
    got = read_csv(folder / out)
    return (worst_gap(got, read_csv(folder / app_name(a, b, weighted)), who),
            relation_gap(got, app_test(folder, a, b, weighted), who), done.stdout)


def every_pair(folder, command, script, who):
    """Both comparisons over every pair, weighted first, then not: the worst of each, and what each run printed
    by (a, b, weighted)."""
    worst, printed = [0.0, 0.0], {}
    for a, b in PAIRS:
        for weighted in (True, False):
            *gaps, printed[a, b, weighted] = compare(folder, command, script, a, b, weighted, (who, a, b, weighted))
            worst = [max(x, y) for x, y in zip(worst, gaps, strict=True)]
    return worst, printed


def relation_words(stdout):
    """The printout's "Related?" line, without its prefix."""
    return next(line for line in stdout.splitlines() if line.startswith("  Related? ")).removeprefix("  Related? ")


@pytest.mark.slow
def test_the_python_script_gives_the_apps_crosstab_csv_and_test_weighted_and_not_and_prints_them(exported):
    survey, folder = exported
    for a, b in PAIRS[1:]:  # two direct questions (EMPTY_CELL) have enough respondents
        for weighted in (False, True):
            want = read_csv(folder / app_name(a, b, weighted))
            assert len(want) >= 6 and all(r["too_few"] == "true" for r in want)  # the warning is there too
    worst, printed = every_pair(folder, python_command, f"{survey.slug}-analysis.py", "Python")
    print(f"Python: largest difference from the app's crosstab.csv {worst[0]:.3g} SE, from its test {worst[1]:.3g}")
    lines = run([sys.executable, f"{survey.slug}-analysis.py", "--crosstab", "q2,q1", "--weighted"],
                folder).stdout.splitlines()
    assert lines[0] == "Cross-tab of q2 (Age band?) by q1 (Cheated?)"
    assert lines[1] == f"  n = {N} responses with a report to both; intervals at 0.95"
    assert lines[2].startswith(f"  weighted: the {N} weighted responses raked")
    assert sum(line.startswith(("  18-34 ", "  35-54 ", "  55+ ")) for line in lines) == 6
    for (a, b, weighted), stdout in printed.items():
        assert relation_words(stdout).startswith(app_test(folder, a, b, weighted)["statement"] + " ("), (a, b, weighted)


@pytest.mark.slow
def test_the_r_script_gives_the_apps_crosstab_csv_and_test_weighted_and_not(exported):
    survey, folder = exported
    worst, printed = every_pair(folder, r_command, f"{survey.slug}-analysis.R", "R")
    print(f"R: largest difference from the app's crosstab.csv {worst[0]:.3g} SE, from its test {worst[1]:.3g}")
    for (a, b, weighted), stdout in printed.items():
        assert relation_words(stdout).startswith(app_test(folder, a, b, weighted)["statement"] + " ("), (a, b, weighted)


def assert_each_plant_caught(folder, script, plants, command, caught_on):
    """Each plant (the text replaced, its replacement) made in the generated `script`, the copy run by `command` on
    the table that shows it (`caught_on`: (A, B, weighted), the first in `every_pair`'s order to fail; running the
    pairs before it, which pass, would only cost R's start each time): the comparison with the app fails, naming
    the plant (a number off, not a script that failed)."""
    assert set(caught_on) == set(plants)
    text = (folder / script).read_text(encoding="utf-8")
    planted = "planted" + script[script.rindex("."):]
    for bug, (old, new) in plants.items():
        assert text.count(old) == 1, bug
        (folder / planted).write_text(text.replace(old, new), encoding="utf-8")
        with pytest.raises(AssertionError) as caught:
            compare(folder, command, planted, *caught_on[bug], bug)
        assert bug in str(caught.value)


PLANTED = {
    # The raking term dropped: residuals of the weighted mean alone, as if the weights were fixed.
    "the_raking_term_dropped": ("    e = u - z @ beta\n", "    e = u - (w @ u) / total\n"),
    # Every joint interval at n rather than the cell's effective n.
    "intervals_at_n": ("size = np.where((variance > 0) & (one > 0), one / variance, weights.effective_n())",
                       "size = np.full((ka, kb), float(n))"),
    # Fieller's interval without the covariance of numerator and denominator.
    "the_covariance_left_out": ("cov = np.array([both[i * k_other + j, i]",
                                "cov = 0 * np.array([both[i * k_other + j, i]"),
    # The test: Rao and Scott's correction dropped (Delta the identity: F = X^2 / df on df and df (n - 1)).
    "the_rao_scott_correction_dropped": ("delta = np.linalg.solve(",
                                         "delta = np.eye((r - 1) * (c - 1)) + 0 * np.linalg.solve("),
    # Pearson's degrees of freedom off by one.
    "df_off_by_one": ("float(((observed - expected) ** 2 / expected).sum()), (r - 1) * (c - 1)",
                      "float(((observed - expected) ** 2 / expected).sum()), (r - 1) * (c - 1) + 1"),
    # Bonferroni skipped: the smallest p-value of a multi-select question's tables as it is.
    "bonferroni_skipped": ("p_value = min(1.0, best[0] * len(tested))", "p_value = best[0]"),
}
# Where each shows: with the empty cell weighted, as most do; Pearson's df in the unweighted test; Bonferroni with
# the unary question's tables. (R's svychisq, which the empty cell's table does not use, between two index questions.)
WEIGHTED_EMPTY_CELL = (*EMPTY_CELL, True)
CAUGHT_ON = {"the_raking_term_dropped": WEIGHTED_EMPTY_CELL, "intervals_at_n": WEIGHTED_EMPTY_CELL,
             "the_covariance_left_out": WEIGHTED_EMPTY_CELL, "the_rao_scott_correction_dropped": WEIGHTED_EMPTY_CELL,
             "df_off_by_one": (*EMPTY_CELL, False), "bonferroni_skipped": ("q4", "q5", True)}


@pytest.mark.slow
def test_the_comparison_catches_bugs_planted_in_python(exported):
    survey, folder = exported
    assert_each_plant_caught(folder, f"{survey.slug}-analysis.py", PLANTED, python_command, CAUGHT_ON)


PLANTED_IN_R = {
    # The raking term dropped: svymean on the raked weights taken as fixed, not on the calibrated design.
    "the_raking_term_dropped": ("list(design = calibrated,", "list(design = fixed,"),
    # Every joint interval at n rather than the cell's effective n.
    "intervals_at_n": ("else if (variance > 0 && one > 0) one / variance else weights$effective_n",
                       "else n"),
    # The test: svychisq's first-order correction (statistic "Chisq": X^2 over the mean design effect) for the F.
    "svychisq_first_order": ('statistic = "F"', 'statistic = "Chisq"'),
    # The test with an empty cell (the app's rule, not svychisq): Rao and Scott's correction dropped.
    "the_rao_scott_correction_dropped": ("delta <- solve(", "delta <- diag((r - 1) * (c - 1)) + 0 * solve("),
    # Pearson's degrees of freedom off by one.
    "df_off_by_one": ("df <- (nrow(kept) - 1) * (ncol(kept) - 1)", "df <- (nrow(kept) - 1) * (ncol(kept) - 1) + 1"),
    # Bonferroni skipped.
    "bonferroni_skipped": ("p_value <- min(1, best$p * nrow(tested))", "p_value <- best$p"),
}


@pytest.mark.slow
def test_the_comparison_catches_bugs_planted_in_r(exported):
    survey, folder = exported
    caught_on = {**CAUGHT_ON, "svychisq_first_order": ("q1", "q4", True)}
    del caught_on["the_covariance_left_out"]
    assert_each_plant_caught(folder, f"{survey.slug}-analysis.R", PLANTED_IN_R, r_command, caught_on)


@pytest.mark.slow
def test_both_scripts_refuse_a_randomized_mean_one_question_twice_one_key_or_an_unknown_key(
        client, owner, all_kinds_survey, tmp_path):
    client.force_login(owner)
    folder = fetch(client, all_kinds_survey, tmp_path)
    for pair, message in (("q1,q8", "q8 is asked for its mean"), ("q9,q1", "q9 is asked for its mean"),
                          ("q1,q1", "two different questions"), ("q1", "two keys"), ("q1,q99", "no question q99")):
        for command in ([sys.executable, "all-analysis.py"], [rscript(), "--vanilla", "all-analysis.R"]):
            done = subprocess.run([*command, "--crosstab", pair], cwd=folder, capture_output=True, text=True,
                                  timeout=120, check=False)
            assert done.returncode != 0 and message in done.stderr, (command, pair, done.stderr)

"""The generated scripts' cross-tabs (--crosstab A,B, weighted with --weighted), run for real on the app's exports of
a seeded survey with two population margins: each script's crosstab.csv (--csv) equals the app's crosstab.csv of the
same pair, column for column, on tables of two index questions, an index and a unary question, two unary questions
and a direct grouping question, weighted and not.

Tolerance: the bar is 1e-6 of the cell's standard error (the joint cell's for its estimate and interval, each
conditional's for its own), BAR. Python redoes the app's arithmetic from the per-respondent score products (its own
raking, the same regression residuals): measured about 1e-13 SE. R rakes with survey::rake, stopped by another
rule than the app's (its weights about 1e-12 apart here), and takes the (co)variances from svymean's vcov on the
calibrated design: measured in the module's printout, well inside the bar.

Planted bugs, each made in the generated script and run (`test_the_comparison_catches_bugs_planted_in_...`): in
Python the raking term dropped from the linearization (the residuals of the mean instead of the regression on the
margins), every weighted joint interval at n instead of the cell's effective n, and the conditional's covariance
left out of Fieller's interval; in R svymean on the raked weights taken as fixed (no calibration) and the intervals
at n. Each one moves some number by more than the bar.

Cost: about 50 s of CPU on one core measured with four pairs (a fifth and the refusals came after), most of it R
(about 20 runs, the weighted ones loading the survey package) and the survey's 500 responses stored once per test;
it is marked slow, as the other script modules are.
"""

import subprocess
import sys

import pytest
from django.urls import reverse

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses
from tests.aggregation.test_analysis_scripts import fetch, read_csv, rscript, run
from tests.aggregation.weighting_support import enter

AGE, REGION = {"18-34": 0.3, "35-54": 0.4, "55+": 0.3}, {"North": 0.45, "South": 0.55}
N = 500
BAR = 1e-6  # of the cell's standard error
# (A, B): qrr x krr (two index questions), krr x sue (index x unary), sue x oue (two unary), direct age x qrr, a
# number asked directly (in its bins) x krr.
PAIRS = [("q1", "q4"), ("q4", "q5"), ("q5", "q6"), ("q2", "q1"), ("q7", "q4")]
NUMBERS = {"estimate": "std_error", "std_error": "std_error", "ci_low": "std_error", "ci_high": "std_error",
           **{f"{given}{part}": f"{given}_std_error" for given in ("b_given_a", "a_given_b")
              for part in ("", "_std_error", "_ci_low", "_ci_high")}}
TEXT = ["a_id", "a_key", "b_id", "b_key", "n", "a_index", "a_label", "b_index", "b_label", "count",
        "b_given_a_bounded", "a_given_b_bounded", "respondents_needed", "too_few", "weights_n"]


@pytest.fixture
def exported(db, owner, client, tmp_path):
    """1 qrr, 2 direct age band, 3 direct region, 4 krr, 5 sue, 6 ordinal by oue, 7 a direct number in 3 bins;
    too many young northerners; both margins entered; the exports fetched, and the app's crosstab.csv of every
    pair, weighted and not."""
    survey = builder.create_survey("pairs", "Pairs", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Age band?", "direct", options=list(AGE)),
        QuestionSpec("Region?", "direct", options=list(REGION)),
        QuestionSpec("How often?", "krr", epsilon=1.5, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Colour?", "sue", epsilon=1.5, options=["Red", "Green", "Blue"]),
        QuestionSpec("Agree?", "oue", epsilon=1.5, kind="ordinal", options=["No", "Maybe", "Yes"],
                     scores=["-1", "0", "2.5"]),
        QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 64", "65 to 99"], edges=["18", "35", "65"]),
    ], status=Survey.Status.OPEN, epsilon_budget=30.0)
    survey.researchers.add(owner)
    add_responses(survey, N, seed=23, truth={2: [0.5, 0.3, 0.2], 3: [0.7, 0.3]})
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
    return survey, folder


def app_name(a, b, weighted):
    return f"app-{a}-{b}{'-weighted' if weighted else ''}.csv"


def flags(a, b, weighted, out):
    return ["--crosstab", f"{a},{b}", "--confidence", "0.9", "--csv", out, *(["--weighted"] if weighted else [])]


def worst_gap(got, want, who):
    """The largest difference from the app's crosstab.csv in units of the cell's standard error; every other column
    equal (the weights' effective n within 1e-9: R's raking stops by another rule)."""
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
            gap = abs(float(mine[column]) - float(theirs[column])) / max(float(theirs[se]), 1e-300)
            assert gap <= BAR, (who, mine["a_index"], mine["b_index"], column, mine[column], theirs[column])
            worst = max(worst, gap)
    return worst


def python_table(survey, folder, a, b, weighted, script=None):
    out = f"py-{a}-{b}-{weighted}.csv"
    run([sys.executable, script or f"{survey.slug}-analysis.py", *flags(a, b, weighted, out)], folder)
    return read_csv(folder / out)


@pytest.mark.slow
def test_the_python_script_gives_the_apps_crosstab_csv_weighted_and_not_and_prints_it(exported):
    survey, folder = exported
    worst = 0.0
    for a, b in PAIRS:
        for weighted in (False, True):
            want = read_csv(folder / app_name(a, b, weighted))
            assert len(want) >= 6 and all(r["too_few"] == "true" for r in want)  # the warning is there too
            worst = max(worst, worst_gap(python_table(survey, folder, a, b, weighted), want, (a, b, weighted)))
    print(f"Python: largest difference from the app's crosstab.csv {worst:.3g} SE")
    lines = run([sys.executable, f"{survey.slug}-analysis.py", "--crosstab", "q2,q1", "--weighted"],
                folder).stdout.splitlines()
    assert lines[0] == "Cross-tab of q2 (Age band?) by q1 (Cheated?)"
    assert lines[1] == f"  n = {N} responses with a report to both; intervals at 0.95"
    assert lines[2].startswith(f"  weighted: the {N} weighted responses raked")
    assert sum(line.startswith(("  18-34 ", "  35-54 ", "  55+ ")) for line in lines) == 6


@pytest.mark.slow
def test_the_r_script_gives_the_apps_crosstab_csv_weighted_and_not(exported):
    survey, folder = exported
    worst = 0.0
    for a, b in PAIRS:
        for weighted in (False, True):
            out = f"r-{a}-{b}-{weighted}.csv"
            run([rscript(), "--vanilla", f"{survey.slug}-analysis.R", f"{survey.slug}-reports.csv",
                 *flags(a, b, weighted, out)], folder)
            want = read_csv(folder / app_name(a, b, weighted))
            worst = max(worst, worst_gap(read_csv(folder / out), want, ("R", a, b, weighted)))
    print(f"R: largest difference from the app's crosstab.csv {worst:.3g} SE")


PLANTED = {
    # The raking term dropped: residuals of the weighted mean alone, as if the weights were fixed.
    "the_raking_term_dropped": ("    e = u - z @ beta\n", "    e = u - (w @ u) / total\n"),
    # Every joint interval at n rather than the cell's effective n.
    "intervals_at_n": ("size = np.where((variance > 0) & (one > 0), one / variance, weights.effective_n())",
                       "size = np.full((ka, kb), float(n))"),
    # Fieller's interval without the covariance of numerator and denominator.
    "the_covariance_left_out": ("cov = np.array([both[i * k_other + j, i]",
                                "cov = 0 * np.array([both[i * k_other + j, i]"),
}


@pytest.mark.slow
def test_the_comparison_catches_bugs_planted_in_python(exported):
    survey, folder = exported
    text = (folder / f"{survey.slug}-analysis.py").read_text(encoding="utf-8")
    for bug, (old, new) in PLANTED.items():
        assert text.count(old) == 1
        (folder / "planted.py").write_text(text.replace(old, new), encoding="utf-8")
        with pytest.raises(AssertionError) as caught:
            for a, b in PAIRS:
                worst_gap(python_table(survey, folder, a, b, True, "planted.py"),
                          read_csv(folder / app_name(a, b, True)), bug)
        assert bug in str(caught.value)  # a number off by more than the bar, not a script that failed to run

PLANTED_IN_R = {
    # The raking term dropped: svymean on the raked weights taken as fixed, not on the calibrated design.
    "the_raking_term_dropped": ("list(design = calibrated,", "list(design = fixed,"),
    # Every joint interval at n rather than the cell's effective n.
    "intervals_at_n": ("else if (variance > 0 && one > 0) one / variance else weights$effective_n",
                       "else n"),
}


@pytest.mark.slow
def test_the_comparison_catches_bugs_planted_in_r(exported):
    survey, folder = exported
    text = (folder / f"{survey.slug}-analysis.R").read_text(encoding="utf-8")
    for bug, (old, new) in PLANTED_IN_R.items():
        assert text.count(old) == 1
        (folder / "planted.R").write_text(text.replace(old, new), encoding="utf-8")
        with pytest.raises(AssertionError) as caught:
            for a, b in PAIRS:
                run([rscript(), "--vanilla", "planted.R", f"{survey.slug}-reports.csv", *flags(a, b, True, "r.csv")],
                    folder)
                worst_gap(read_csv(folder / "r.csv"), read_csv(folder / app_name(a, b, True)), bug)
        assert bug in str(caught.value)


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

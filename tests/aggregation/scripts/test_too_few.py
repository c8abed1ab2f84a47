"""The generated R and Python scripts apply the dashboard's rule for too few respondents
(surveys.aggregation.results.too_few) to the fixed-n intervals they compute: a question below the planner's
respondents for --margin prints a warning line right under its heading, before its figures, and its rows say
too_few = true with the planner's number, as the estimates API says for the same intervals. Debian's R runs
analysis.R (as in test_analysis_scripts); about 5 s for the two R and two Python runs."""

import pytest
from django.urls import reverse

from tests.aggregation.results.test_too_few import MARGIN, needed
from tests.aggregation.scripts.test_analysis_scripts import fetch, run_python, run_r
from tests.aggregation.support import add_responses


def warning_line(n, need, level="0.95"):
    return (f"  WARNING: too few respondents: n = {n} of the {need} needed for a margin of {MARGIN:g} at {level} "
            "(worst case); the randomization dominates and the dashboard does not show these estimates: do not "
            "read them alone")


@pytest.mark.slow
@pytest.mark.parametrize("short", [1, 0], ids=["one-short", "exactly-enough"])
def test_the_scripts_print_the_warning_where_the_dashboard_withholds(client, owner, two_questions, tmp_path, short):
    need_krr, need_direct = needed(two_questions)
    n = need_krr - short
    add_responses(two_questions, n, seed=7)
    client.force_login(owner)
    folder = fetch(client, two_questions, tmp_path)
    api = client.get(reverse("aggregation:api-estimates", args=[two_questions.slug])
                     + f"?interval=wilson&margin={MARGIN}").json()
    expected = {q["key"]: (str(q["planner"]["respondents_needed"]), str(q["too_few"]).lower())
                for q in api["questions"]}
    assert expected == {"q1": (str(need_krr), str(bool(short)).lower()), "q2": (str(need_direct), "false")}
    for who, (printed, rows) in (("R", run_r(folder, "few", ["--margin", str(MARGIN)])),
                                 ("Python", run_python(folder, "few", ["--margin", str(MARGIN)]))):
        assert {r["question_key"]: (r["respondents_needed"], r["too_few"]) for r in rows} == expected, who
        lines = printed.splitlines()
        warnings = [line for line in lines if "WARNING" in line]
        assert warnings == ([warning_line(n, need_krr)] if short else []), who
        if short:  # under the question's heading and channel line, before its table
            at = lines.index(warnings[0])
            assert lines[at - 2].startswith("q1  Colour?") and lines[at + 1].split() == [
                "option", "count", "estimate", "std_error", "ci_low", "ci_high"], who

"""The generated scripts, run for real on the app's own exports of a survey with every mechanism
(qrr, bitflip, krr, sue, oue, direct): Debian's R (r-base-core, which `make test` installs) runs
analysis.R, the test's Python runs analysis.py, and `python -m ldp analyze` reads the same files;
each one's numbers equal the estimates API's. The bar is 1e-9; they agree to TOLERANCE (1e-12),
tight enough to tell the effective channel from one recomputed from the configured epsilon (they
differ by about 1e-10 here). R's reader (reports.R) gives every column its labels.
"""

import ast
import csv
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from ldp.offline import analyze
from tests.aggregation.conftest import TRICKY_TEXT
from tests.aggregation.support import add_responses

ROOT = Path(__file__).resolve().parents[3]
TOLERANCE = 1e-12
QUERIES = {
    # The scripts' defaults are the fixed-n Wilson intervals: asked of the API explicitly, since an open
    # survey's API default is the interval valid however often you look, which the scripts do not compute.
    "defaults": ("?interval=wilson", []),
    "exact-0.9-simultaneous": ("?confidence=0.9&interval=exact&simultaneous=on",
                               ["--confidence", "0.9", "--interval", "exact", "--simultaneous"]),
}
FILES = {"reports-csv": "reports.csv", "reports-json": "reports.json", "codebook": "codebook.json",
         "analysis-r": "analysis.R", "analysis-py": "analysis.py", "reports-r": "reports.R"}
NUMBERS = ("estimate", "std_error", "ci_low", "ci_high")


def rscript() -> str:
    found = shutil.which("Rscript")
    assert found, "Rscript not found: `make system-deps` installs Debian's r-base-core"
    return found


SCRIPTS_FROM = "?interval=wilson"  # the scripts as a page of fixed-n Wilson intervals gives them: their defaults


def fetch(client, survey, folder: Path) -> Path:
    """Every export and script of the survey into `folder`, under the names the app gives them; the scripts from a
    page showing fixed-n Wilson intervals (scripts/test_defaults.py downloads them from other pages)."""
    for name, file in FILES.items():
        query = SCRIPTS_FROM if name.startswith("analysis") else ""
        response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]) + query)
        assert response.status_code == 200
        body = b"".join(response.streaming_content) if response.streaming else response.content
        (folder / f"{survey.slug}-{file}").write_bytes(body)
    return folder


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done


def run_r(folder: Path, slug: str, flags: list[str]) -> tuple[str, list[dict]]:
    done = run([rscript(), "--vanilla", f"{slug}-analysis.R", f"{slug}-reports.csv", "--csv", "r.csv", *flags],
               folder)
    return done.stdout, read_csv(folder / "r.csv")


def run_python(folder: Path, slug: str, flags: list[str]) -> tuple[str, list[dict]]:
    done = run([sys.executable, f"{slug}-analysis.py", "--csv", "py.csv", *flags], folder)
    return done.stdout, read_csv(folder / "py.csv")


def run_ldp(folder: Path, export: str, flags: list[str]) -> list[dict]:
    out = folder / f"ldp-{export}.csv"
    run([sys.executable, "-m", "ldp", "analyze", str(folder / export), "--format", "csv", "--output", str(out),
         *flags], ROOT)
    return read_csv(out)


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


# The scripts add the too-few rule's columns to `ldp analyze`'s (which has no planner margin).
SCRIPT_COLUMNS = [*analyze.ROW_COLUMNS, "respondents_needed", "too_few"]


def assert_same_as_the_api(rows: list[dict], api: dict, who: str, columns: list[str] = SCRIPT_COLUMNS) -> None:
    expected = [(q, o) for q in api["questions"] for o in q["options"]]
    assert len(rows) == len(expected), who
    assert list(rows[0]) == columns, who
    for row, (question, option) in zip(rows, expected, strict=True):
        where = (who, question["key"], option["index"])
        if columns == SCRIPT_COLUMNS:  # the one rule for too few respondents, as the API applies it
            assert (int(row["respondents_needed"]), row["too_few"]) == (
                question["planner"]["respondents_needed"], str(question["too_few"]).lower()), where
        assert (row["question_key"], int(row["option_index"]), row["option_label"]) == (
            question["key"], option["index"], option["label"]), where
        assert (int(row["n"]), int(row["count"])) == (question["n"], option["count"]), where
        assert row["randomized"] == str(question["mechanism"]["randomized"]).lower(), where
        channel = question["mechanism"]
        assert (float(row["p"]), float(row["q_other"])) == (channel["p"], channel["q_other"]), where
        assert float(row["interval_level"]) == pytest.approx(question["interval_level"], abs=TOLERANCE), where
        for column in NUMBERS:
            want = option[column]
            got = None if row[column] == "" else float(row[column])
            assert (got is None) == (want is None), where + (column,)
            if want is not None:
                assert abs(got - want) <= TOLERANCE, where + (column, got, want)


@pytest.fixture
def exported(client, owner, every_kind_survey, tmp_path):
    """The survey of every kind with 300 responses (skewed answers), fetched as its researcher."""
    add_responses(every_kind_survey, 300, seed=21, truth={1: [0.9, 0.1], 3: [0.7, 0.2, 0.1], 5: [0.6, 0.3, 0.1, 0.0]})
    client.force_login(owner)
    return every_kind_survey, fetch(client, every_kind_survey, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("query", QUERIES, ids=list(QUERIES))
def test_r_python_and_ldp_analyze_give_the_estimates_apis_numbers(client, exported, query):
    survey, folder = exported
    parameters, flags = QUERIES[query]
    api = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + parameters).json()
    assert {q["mechanism"]["name"] for q in api["questions"]} == {"qrr", "bitflip", "krr", "sue", "oue", "direct"}
    r_out, r_rows = run_r(folder, survey.slug, flags)
    py_out, py_rows = run_python(folder, survey.slug, flags)
    assert_same_as_the_api(r_rows, api, "R")
    assert_same_as_the_api(py_rows, api, "Python")
    ldp_columns = analyze.ROW_COLUMNS
    assert_same_as_the_api(run_ldp(folder, f"{survey.slug}-reports.csv", flags), api, "ldp analyze, CSV", ldp_columns)
    assert_same_as_the_api(run_ldp(folder, f"{survey.slug}-reports.json", flags), api, "ldp analyze, JSON",
                           ldp_columns)
    for printed in (r_out, py_out):  # the tables people read show the same figures, rounded
        for question in api["questions"]:
            assert question["key"] in printed
            for option in question["options"]:
                assert f"{option['estimate']:.4f}" in printed, (question["key"], option["index"])
    assert "randomized report: do not tabulate as answers" in r_out and "direct answer: not randomized" in r_out


@pytest.mark.slow
def test_with_no_responses_every_estimate_is_undefined_and_every_interval_whole(client, owner, every_kind_survey,
                                                                               tmp_path):
    client.force_login(owner)
    folder = fetch(client, every_kind_survey, tmp_path)
    api = client.get(reverse("aggregation:api-estimates", args=[every_kind_survey.slug]) + "?interval=wilson").json()
    for rows, who in ((run_r(folder, "kinds", [])[1], "R"), (run_python(folder, "kinds", [])[1], "Python")):
        assert_same_as_the_api(rows, api, who)
        assert {row["estimate"] for row in rows} == {""} and {float(row["ci_high"]) for row in rows} == {1.0}


@pytest.mark.slow
def test_r_reads_the_csv_with_its_labels(exported):
    survey, folder = exported
    script = (f'source("{survey.slug}-reports.R"); '
              'info <- data.frame(column = names(reports), '
              'label = vapply(reports, function(x) attr(x, "label"), ""), '
              'labels = vapply(reports, function(x) paste(attr(x, "labels"), names(attr(x, "labels")), '
              'sep = "=", collapse = "|"), ""), '
              'p = vapply(reports, function(x) if (is.null(attr(x, "ldp"))) "" else attr(x, "ldp")$p, ""), '
              'class = vapply(reports, function(x) class(x)[[1]], "")); '
              'write.csv(info, "labels.csv", row.names = FALSE, fileEncoding = "UTF-8"); '
              'write.csv(reports, "values.csv", row.names = FALSE, na = "", fileEncoding = "UTF-8")')
    run([rscript(), "--vanilla", "-e", script], folder)
    info = {row["column"]: row for row in read_csv(folder / "labels.csv")}
    assert info["q1"]["label"] == " ".join(TRICKY_TEXT.split()) + " [randomized report: do not tabulate as answers]"
    assert info["q6"]["label"] == "Age band? [direct answer: not randomized]"
    assert info["q4_1"]["label"] == 'Colour? = Green "2" [randomized report: do not tabulate as answers]'
    assert info["q1"]["labels"] == "0=No|1=Yes"
    assert info["q4_2"]["labels"] == "0=not reported|1=reported"
    assert info["q6"]["labels"] == "0=18-34|1=35-54|2=55+"
    assert (info["q1"]["p"], info["q2"]["p"], info["q6"]["p"]) == ("13/20", "3139943215/4294967296", "1/1")
    assert info["submitted_on"]["class"] == "Date" and info["q3"]["class"] == "integer"
    # The values R read are the CSV's.
    with (folder / f"{survey.slug}-reports.csv").open(newline="", encoding="utf-8") as file:
        assert list(csv.reader(file)) == list(csv.reader(io.StringIO((folder / "values.csv").read_text())))


@pytest.mark.slow
def test_the_r_scripts_use_base_r_only_but_for_weights_and_the_python_script_numpy_and_the_standard_library(
        exported):
    survey, folder = exported
    for name in ("analysis.R", "reports.R"):
        text = (folder / f"{survey.slug}-{name}").read_text()
        assert "library(" not in text and "require(" not in text
        # Only the weighted figures (--weighted) ask for R's survey package, and only then.
        assert re.findall(r"requireNamespace\(([^,)]*)", text) == (['"survey"'] if name == "analysis.R" else [])
        code = "\n".join(line.split("#")[0] for line in text.splitlines())
        allowed = {"stats", "utils", "survey"} if name == "analysis.R" else {"stats", "utils"}
        assert set(re.findall(r"([A-Za-z][A-Za-z0-9.]*):::?", code)) <= allowed
    tree = ast.parse((folder / f"{survey.slug}-analysis.py").read_text())
    # Only a model written as a formula (--formula) asks for formulaic (and its pandas), and only then.
    formulas = next(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                    and node.name == "formula_matrix")
    assert imports(formulas) == {"formulaic", "pandas"}
    outside = imports(tree) - imports(formulas) - set(sys.stdlib_module_names)
    assert outside == {"numpy"}


def imports(tree):
    found = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}
    return found | {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


def test_the_scripts_hold_the_surveys_definition_and_nothing_of_its_responses(client, owner, every_kind_survey,
                                                                             tmp_path):
    """A script is the same before and after responses arrive (and so carries none of them)."""
    client.force_login(owner)
    before = {name: (fetch(client, every_kind_survey, tmp_path) / f"kinds-{name}").read_text()
              for name in ("analysis.R", "analysis.py", "reports.R")}
    add_responses(every_kind_survey, 40, seed=2)
    after = {name: (fetch(client, every_kind_survey, tmp_path) / f"kinds-{name}").read_text() for name in before}
    assert before == after


@pytest.mark.parametrize("name, content_type", [("analysis-r", "text/plain"), ("reports-r", "text/plain"),
                                                ("analysis-py", "text/x-python")])
def test_each_script_is_a_named_attachment(client, owner, survey, name, content_type):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]))
    assert response["Content-Disposition"] == f'attachment; filename="health-{FILES[name]}"'
    assert response["Content-Type"].startswith(content_type)


def test_the_python_script_prints_every_option_label_whole(exported):
    survey, folder = exported
    printed, _ = run_python(folder, survey.slug, [])
    labels = [option.label for question in survey.ordered_questions() for option in question.ordered_options()]
    assert max(map(len, labels)) > 150  # "Often xxx…": longer than any fixed column
    for label in labels:
        assert re.search(rf"^  {re.escape(label)} +\d", printed, re.MULTILINE), label

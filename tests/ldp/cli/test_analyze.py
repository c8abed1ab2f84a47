"""`python -m ldp analyze`, run from the repository root (test_main's `run`), on hand-made files in the
app's format (tests/aggregation/scripts/test_analysis_scripts.py runs it on the app's own exports)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from ldp.offline import analyze
from tests.ldp.cli.test_main import run
from tests.ldp.offline.test_analyze import MECHANISMS, codebook, csv_text, expected, reports


@pytest.fixture
def export(tmp_path):
    made = reports(200, seed=5)
    book = codebook()
    (tmp_path / "demo-reports.csv").write_text(csv_text(book, made))
    (tmp_path / "demo-codebook.json").write_text(json.dumps(book))
    return tmp_path / "demo-reports.csv", made


def test_it_prints_every_estimate_as_json_at_full_precision(export):
    path, made = export
    done = run("analyze", str(path), "--format", "json", "--confidence", "0.9", "--interval", "exact")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    for key in MECHANISMS:
        want = expected(made, key, confidence=0.9, interval="exact")
        mine = [row for row in rows if row["question_key"] == key]
        assert [row["estimate"] for row in mine] == list(want.estimate)
        assert [row["ci_high"] for row in mine] == list(want.ci_high)
        assert {row["interval"] for row in mine} == {"exact"}


def test_csv_output_has_the_documented_columns_and_flags_in_lower_case(export, tmp_path):
    path, made = export
    out = tmp_path / "estimates.csv"
    done = run("analyze", str(path), "--codebook", str(path.with_name("demo-codebook.json")), "--format", "csv",
               "--simultaneous", "--output", str(out))
    assert done.returncode == 0 and done.stdout == "", done.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert list(rows[0]) == analyze.ROW_COLUMNS
    assert {row["simultaneous"] for row in rows} == {"true"}
    assert {row["randomized"] for row in rows if row["question_key"] == "q6"} == {"false"}
    want = expected(made, "q5", simultaneous=True)
    assert [float(row["ci_low"]) for row in rows if row["question_key"] == "q5"] == list(want.ci_low)


def test_the_text_table_names_each_question_its_channel_and_options(export):
    path, _ = export
    done = run("analyze", str(path))
    assert done.returncode == 0, done.stderr
    assert "q1  Question q1?" in done.stdout
    assert "randomized (qrr): p = 13/20, q_other = 7/20" in done.stdout
    assert "direct: not randomized" in done.stdout
    assert "q5 option 3" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["missing-reports.csv"], "argument export: missing-reports.csv: no codebook beside it"),
    (["{dir}/demo-reports.csv", "--codebook", "{dir}/nope.json"], "nope.json: No such file"),
    (["{dir}/demo-reports.csv", "--confidence", "1"], "argument --confidence: must lie in [0.5, 1)"),
    (["{dir}/demo-reports.csv", "--interval", "wald"], "argument --interval: invalid choice"),
    (["{dir}/demo-reports.csv", "--planned", "500"], "argument --planned: only with --interval anytime"),
    (["{dir}/demo-reports.csv", "--interval", "anytime", "--planned", "0"], "argument --planned: "),
])
def test_it_refuses_bad_arguments_naming_them(export, args, message):
    path, _ = export
    done = run("analyze", *(arg.format(dir=path.parent) for arg in args))
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr

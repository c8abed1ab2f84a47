"""`python -m ldp synthesize`: the command line contract of issue 43 (its columns, its rows, its errors)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from ldp import make
from tests.ldp.cli.test_main import ROOT, run
from tests.ldp.synthetic_population import SPEC_TEXT, SPECS, planted


def _write(path, header, columns):
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows(zip(*columns, strict=True))
    return path


def _read(path):
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.reader(file))
    return rows[0], rows[1:]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    population = planted(1500, 2)
    path = tmp_path_factory.mktemp("synthesize") / "reports.csv"
    return _write(path, list(SPECS), [population.cells[c] for c in SPECS])


def synthesize(*args):
    return run("synthesize", *args)


def test_it_writes_true_answers_under_the_same_columns_in_the_same_order(reports, tmp_path):
    out = tmp_path / "synthetic.csv"
    done = synthesize("--csv", str(reports), "--spec", SPEC_TEXT, "--rows", "400", "--seed", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    header, rows = _read(out)
    assert header == list(SPECS) and len(rows) == 400
    columns = dict(zip(header, zip(*rows, strict=True), strict=True))
    options = {"region": 3, "b": 2, "c": 2, "d": 4, "e": 3, "f": 4, "y": 2}
    for column, k in options.items():  # option indexes, sue and oue too (a true answer is one option)
        assert set(columns[column]) <= {str(j) for j in range(k)}, column
    assert {len(cell) for cell in columns["g"]} == {3} and set("".join(columns["g"])) <= {"0", "1"}
    assert all(cell.count("1") <= 2 for cell in columns["g"])  # at_most=2
    assert set(columns["h"]) <= {"0", "10"}  # a 1-bit mean: the grid's ends
    assert set(columns["i"]) <= {str(i) for i in range(11)}  # discrete Laplace: the grid index
    printed = json.loads(done.stdout)
    assert printed["rows"] == 400 and printed["columns"] == list(SPECS)


def test_it_draws_as_many_rows_as_the_reports_by_default_and_the_same_rows_for_the_same_seed(reports, tmp_path):
    outs = [tmp_path / f"{name}.csv" for name in ("a", "b", "c")]
    for out, seed in zip(outs, ("5", "5", "6"), strict=True):
        assert synthesize("--csv", str(reports), "--spec", SPEC_TEXT, "--seed", seed, "--out", str(out)).returncode == 0
    assert len(_read(outs[0])[1]) == 1500
    assert outs[0].read_text() == outs[1].read_text() != outs[2].read_text()


def test_it_writes_the_quality_report_it_prints(reports, tmp_path):
    out, stated = tmp_path / "synthetic.csv", tmp_path / "quality.json"
    done = synthesize("--csv", str(reports), "--spec", SPEC_TEXT, "--seed", "1", "--out", str(out),
                      "--quality", str(stated))
    report = json.loads(stated.read_text())
    printed = json.loads(done.stdout)
    assert printed["largest_difference"] == report["largest"] == max(m["ratio"] for m in report["marginals"])
    assert printed["warnings"] == [w["text"] for w in report["warnings"]]
    names = {tuple(m["variables"]) for m in report["marginals"]}
    assert ("region",) in names and ("b", "y") in names and ("i",) not in names  # discrete Laplace: a mean only


def _cells(tmp_path, header, *columns):
    return str(_write(tmp_path / "r.csv", header, columns))


@pytest.mark.parametrize("spec, columns, argument, words", [
    ("a=magic:k=3", {"a": ["0", "1"]}, "--spec", "unknown mechanism 'magic'"),
    ("a=krr:epsilon=1", {"a": ["0", "1"]}, "--spec", "needs k"),
    ("a=krr:epsilon=1:k=3;b=direct:k=2", {"a": ["0", "1"]}, "--spec", "column 'b' is not in the CSV of --csv"),
    ("a=krr:epsilon=1:k=3", {"a": ["0", "1"], "b": ["1", "0"]}, "--spec", "no mechanism for the column 'b' of --csv"),
    ("a=qrr:q=1/2:k=3", {"a": ["0", "1"]}, "--spec", "yes/no"),
    ("a=qrr:epsilon=1", {"a": ["0", "1"]}, "--spec", "takes q"),
    ("a=krr:epsilon=1:k=3:colour=red", {"a": ["0", "1"]}, "--spec", "key=value"),
    ("a=krr:epsilon=1:k=3", {"a": ["0", "3"]}, "--csv", "row 2, column a: 3 is out of range [0, 2]"),
    ("a=krr:epsilon=1:k=3", {"a": ["0", "x"]}, "--csv", "row 2, column a: 'x' is not a whole number"),
    ("a=oue:epsilon=1:k=3", {"a": ["010", "01"]}, "--csv", "row 2, column a: '01' is not 3 bits"),
    ("a=multiselect:epsilon=1:k=2", {"a": ["01", "02"]}, "--csv", "row 2, column a: '02' is not 2 bits"),
    ("a=dlaplace:epsilon=1:lo=0:hi=10:step=1", {"a": ["3", "-5000"]}, "--csv", "out of range"),
    ("a=onebit:epsilon=1:lo=0:hi=10:step=1", {"a": ["1", "2"]}, "--csv", "out of range [0, 1]"),
], ids=["unknown-mechanism", "no-k", "spec-column-not-in-csv", "csv-column-without-spec", "yes-no-k", "qrr-epsilon",
        "unknown-key", "index-out-of-range", "not-a-number", "bits-length", "multiselect-bits", "dlaplace-bound",
        "onebit-bit"])
def test_it_refuses_bad_arguments_with_status_2_naming_the_argument(tmp_path, spec, columns, argument, words):
    path = _cells(tmp_path, list(columns), *columns.values())
    done = synthesize("--csv", path, "--spec", spec, "--rows", "5", "--seed", "1", "--out", str(tmp_path / "o.csv"))
    assert done.returncode == 2, done.stderr
    assert f"argument {argument}: " in done.stderr and words in done.stderr, done.stderr
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("flag, value", [("--rows", "0"), ("--rows", "-3"), ("--rows", "many"), ("--seed", "-1"),
                                         ("--seed", "x")])
def test_it_refuses_bad_rows_and_seeds(tmp_path, flag, value):
    path = _cells(tmp_path, ["a"], ["0", "1"])
    args = {"--rows": "5", "--seed": "1", flag: value}
    done = synthesize("--csv", path, "--spec", "a=direct:k=2", "--rows", args["--rows"], "--seed", args["--seed"],
                      "--out", str(tmp_path / "o.csv"))
    assert done.returncode == 2 and f"argument {flag}: " in done.stderr, done.stderr


def test_it_refuses_a_missing_or_empty_csv(tmp_path):
    for path, words in ((tmp_path / "absent.csv", "cannot read"), (_write(tmp_path / "e.csv", ["a"], [[]]),
                                                                     "no reports")):
        done = synthesize("--csv", str(path), "--spec", "a=direct:k=2", "--out", str(tmp_path / "o.csv"))
        assert done.returncode == 2 and "argument --csv: " in done.stderr and words in done.stderr, done.stderr


def test_it_wants_a_spec_or_a_codebook_but_not_both(tmp_path):
    path = _cells(tmp_path, ["a"], ["0", "1"])
    neither = synthesize("--csv", path, "--out", str(tmp_path / "o.csv"))
    both = synthesize("--csv", path, "--spec", "a=direct:k=2", "--codebook", path, "--out", str(tmp_path / "o.csv"))
    assert neither.returncode == both.returncode == 2
    assert "--spec" in neither.stderr and "--codebook" in both.stderr


def test_missing_reports_are_empty_cells(tmp_path):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, 600).astype(str)
    b = np.where(rng.random(600) < 0.3, "", rng.integers(0, 2, 600).astype(str))
    path = _cells(tmp_path, ["a", "b"], a, b)
    out = tmp_path / "o.csv"
    done = synthesize("--csv", path, "--spec", "a=direct:k=3;b=bitflip:epsilon=2", "--seed", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    header, rows = _read(out)
    assert header == ["a", "b"] and len(rows) == 600 and all(cell in ("0", "1") for _, cell in rows)


def test_it_runs_as_a_process(reports, tmp_path):
    out = tmp_path / "synthetic.csv"
    done = subprocess.run([sys.executable, "-m", "ldp", "synthesize", "--csv", str(reports), "--spec", SPEC_TEXT,
                           "--rows", "50", "--seed", "2", "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert _read(out)[0] == list(SPECS) and len(_read(out)[1]) == 50
    bad = subprocess.run([sys.executable, "-m", "ldp", "synthesize", "--csv", str(reports), "--spec", "x=magic",
                          "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode == 2 and "argument --spec" in bad.stderr


def _codebook_entry(key, mechanism, options, columns):
    described = {**mechanism.describe(), "randomized": mechanism.randomized}
    if not np.isfinite(described["effective_epsilon"]):
        described["effective_epsilon"] = None
    return {"key": key, "text": key, "options": options, "randomized": mechanism.randomized, "mechanism": described,
            "report": {"encoding": mechanism.encoding, "csv_columns": columns}}


def test_a_codebook_names_the_columns_as_the_apps_reports_csv(tmp_path):
    rng = np.random.default_rng(3)
    n = 800
    krr, oue = make("krr", epsilon=2.0, k=3), make("oue", epsilon=2.0, k=3)
    ticks = make("multiselect", epsilon=2.0, k=2)
    laplace, number = make("dlaplace", epsilon=1.0, lo="0", hi="5", step="1"), make("direct_number", lo="0", hi="2",
                                                                                   step="0.5")
    truth = rng.choice(3, size=n, p=[0.6, 0.3, 0.1])
    oue_bits = oue.randomize(truth, rng)
    tick_bits = ticks.randomize(np.column_stack([truth > 0, truth > 1]).astype(np.uint8), rng)
    columns = {"response_id": [str(i) for i in range(n)], "submitted_on": ["2026-01-01"] * n,
               "mechanism_version": ["1"] * n, "q1": krr.randomize(truth, rng).astype(str),
               **{f"q2_{j}": oue_bits[:, j].astype(str) for j in range(3)},
               **{f"q3_{j}": tick_bits[:, j].astype(str) for j in range(2)},
               "q4": laplace.randomize(np.minimum(truth * 2, 5), rng).astype(str),
               "q5": [str(v) for v in (truth * 0.5).tolist()], "weight": [""] * n}
    codebook = {"format": "ldp-survey-codebook/2", "questions": [
        _codebook_entry("q1", krr, ["a", "b", "c"], ["q1"]),
        _codebook_entry("q2", oue, ["a", "b", "c"], ["q2_0", "q2_1", "q2_2"]),
        _codebook_entry("q3", ticks, ["x", "y"], ["q3_0", "q3_1"]),
        _codebook_entry("q4", laplace, [], ["q4"]), _codebook_entry("q5", number, [], ["q5"])]}
    book = tmp_path / "codebook.json"
    book.write_text(json.dumps(codebook))
    path = _cells(tmp_path, list(columns), *columns.values())
    out = tmp_path / "o.csv"
    done = synthesize("--csv", path, "--codebook", str(book), "--rows", "300", "--seed", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    header, rows = _read(out)
    assert header == ["q1", "q2_0", "q2_1", "q2_2", "q3_0", "q3_1", "q4", "q5"] and len(rows) == 300
    assert all(sum(int(c) for c in row[1:4]) == 1 for row in rows)  # an OUE answer: one option's column is 1
    shares = np.array([[int(c) for c in row[1:4]] for row in rows]).mean(axis=0)
    assert shares[0] > 0.45 and shares[2] < 0.25, shares  # ... that option's (0.6, 0.3, 0.1 planted)
    assert {row[6] for row in rows} <= {str(i) for i in range(6)} and {row[7] for row in rows} <= {"0", "1", "2", "3",
                                                                                                   "4"}
    del columns["q3_1"]
    path = _cells(tmp_path, list(columns), *columns.values())
    done = synthesize("--csv", path, "--codebook", str(book), "--out", str(out))
    assert done.returncode == 2 and "argument --csv: has no column 'q3_1'" in done.stderr, done.stderr

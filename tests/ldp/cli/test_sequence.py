"""`python -m ldp sequence` (test_main's `run`): the contract of its JSON lines and its exit status 2."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import ldp
from ldp.sequences.stream import stream_sequence
from tests.ldp.cli.test_main import records, run

KEYS = {"n", "estimate", "ci_low", "ci_high"}


def write(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, row)) + "\n" for row in rows))
    return str(path)


@pytest.fixture
def reference(tmp_path):
    """The public q-RR data set's counts (2,435 reports, 831 yes) in a seeded order, with a response id column."""
    yes = np.zeros(2435, dtype=int)
    yes[:831] = 1
    np.random.default_rng(27).shuffle(yes)
    return yes, write(tmp_path / "reports.csv", ["response_id", "q1"], enumerate(yes))


def test_it_prints_one_line_per_report_with_the_library_sequence(reference):
    yes, path = reference
    out = records(run("sequence", "--csv", path, "--outcome", "q1", "--mechanism", "qrr", "--q", "2/3"))
    expected = stream_sequence(ldp.QRandomizedResponse(Fraction(2, 3)), yes).records()
    assert [set(line) for line in out] == [KEYS] * 2435
    assert [line["n"] for line in out] == list(range(1, 2436))
    assert out == expected  # floats survive JSON exactly
    assert all(len(line["estimate"]) == 2 for line in out)  # [no, yes]: index 1 = yes
    last = out[-1]
    assert (round(last["ci_low"][1], 4), round(last["ci_high"][1], 4)) == (0.2187, 0.3062)


def test_it_prints_only_the_looks_asked_for_in_increasing_order(reference):
    _, path = reference
    out = records(run("sequence", "--csv", path, "--outcome", "q1", "--mechanism", "qrr", "--q", "2/3",
                      "--looks", "2435,10,100", "--confidence", "0.9", "--planned", "500"))
    expected = stream_sequence(ldp.QRandomizedResponse(Fraction(2, 3)), reference[0], looks=[10, 100, 2435],
                               confidence=0.9, planned=500).records()
    assert out == expected


def test_empty_cells_are_missing_reports_and_yes_no_words_are_read(tmp_path):
    cells = ["yes", "", "no", "1", "0", "", "YES"]
    path = write(tmp_path / "r.csv", ["q1"], [[c] for c in cells])
    out = records(run("sequence", "--csv", path, "--outcome", "q1", "--mechanism", "bitflip", "--epsilon", "1"))
    assert out == stream_sequence(ldp.BitFlip(1.0), [1, 0, 1, 0, 1]).records()


def test_unary_reports_are_read_from_the_export_columns_or_one_bit_string(tmp_path):
    m = ldp.OptimizedUnary(1.0, 3)
    bits = m.randomize(np.random.default_rng(2).integers(0, 3, 300), np.random.default_rng(3))
    split = write(tmp_path / "split.csv", ["id", "q4_0", "q4_1", "q4_2"], [[i, *row] for i, row in enumerate(bits)])
    joined = write(tmp_path / "joined.csv", ["q4"], [["".join(map(str, row))] for row in bits])
    expected = stream_sequence(m, bits, looks=[1, 299, 300]).records()
    for path in (split, joined):
        out = records(run("sequence", "--csv", path, "--outcome", "q4", "--mechanism", "oue", "--epsilon", "1",
                          "--k", "3", "--looks", "1,299,300"))
        assert out == expected and len(out[0]["estimate"]) == 3


def test_a_numeric_question_prints_the_mean_in_units(tmp_path):
    m = ldp.DiscreteLaplace(1.0, "0", "10", "0.5")
    r = m.randomize(np.full(400, 7), np.random.default_rng(5))
    path = write(tmp_path / "mean.csv", ["q2"], [[v] for v in r])
    out = records(run("sequence", "--csv", path, "--outcome", "q2", "--mechanism", "dlaplace", "--epsilon", "1",
                      "--lo", "0", "--hi", "10", "--step", "0.5", "--looks", "50,400"))
    assert out == stream_sequence(m, r, looks=[50, 400]).records()
    assert len(out[-1]["estimate"]) == 1 and 0 <= out[-1]["ci_low"][0] <= 3.5 <= out[-1]["ci_high"][0] <= 10


QRR = ["--mechanism", "qrr", "--q", "0.5"]


@pytest.mark.parametrize("args, named", [
    (["--outcome", "q1", *QRR], "--csv"),
    (["--csv", "{csv}", *QRR], "--outcome"),
    (["--csv", "{csv}", "--outcome", "q1", "--mechanism", "nope"], "--mechanism"),
    (["--csv", "{csv}", "--outcome", "q1", "--mechanism", "qrr", "--epsilon", "1"], "--epsilon"),
    (["--csv", "{csv}", "--outcome", "q1", "--mechanism", "bitflip"], "--epsilon"),
    (["--csv", "{csv}", "--outcome", "q1", "--mechanism", "krr", "--epsilon", "1"], "--k"),
    (["--csv", "{csv}", "--outcome", "q1", "--mechanism", "sue", "--epsilon", "1", "--k", "2", "--lo", "0"], "--lo"),
    (["--csv", "{csv}", "--outcome", "q1", *QRR, "--q", "1.5"], "--q"),
    (["--csv", "{csv}", "--outcome", "q1", *QRR, "--confidence", "1.5"], "--confidence"),
    (["--csv", "{csv}", "--outcome", "q1", *QRR, "--looks", "0"], "--looks"),
    (["--csv", "{csv}", "--outcome", "q1", *QRR, "--looks", "1,a"], "--looks"),
    (["--csv", "{csv}", "--outcome", "q1", *QRR, "--looks", "4"], "--looks"),
    (["--csv", "{csv}", "--outcome", "q1", *QRR, "--planned", "0"], "--planned"),
    (["--csv", "{csv}", "--outcome", "nope", *QRR], "--outcome"),
    (["--csv", "{missing}", "--outcome", "q1", *QRR], "--csv"),
    (["--csv", "{bad}", "--outcome", "q1", *QRR], "--csv"),
    (["--csv", "{empty}", "--outcome", "q1", *QRR], "--csv"),
], ids=["no-csv", "no-outcome", "mechanism", "epsilon-for-qrr", "no-epsilon", "no-k", "lo-for-sue", "q-range",
        "confidence", "look-0", "look-word", "look-past-end", "planned-0", "no-column", "no-file", "bad-cell",
        "no-reports"])
def test_bad_arguments_exit_2_naming_the_argument(tmp_path, args, named):
    files = {"csv": write(tmp_path / "ok.csv", ["q1"], [[1], [0], [1]]), "missing": str(tmp_path / "none.csv"),
             "bad": write(tmp_path / "bad.csv", ["q1"], [[1], [2]]), "empty": write(tmp_path / "empty.csv", ["q1"], [])}
    result = run("sequence", *[arg.format(**files) for arg in args])
    assert result.returncode == 2 and result.stdout == ""
    assert named in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_the_output_is_json_lines_without_nan(reference):
    result = run("sequence", "--csv", reference[1], "--outcome", "q1", *QRR, "--looks", "1,2")
    assert result.returncode == 0
    for line in result.stdout.splitlines():
        json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} in the output"))

"""`python -m ldp joint`, run from the repository root (test_main's `run`)."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from tests.ldp.cli.test_main import records, run

KEYS = ["estimate", "std_error", "ci_low", "ci_high", "n", "independence_p"]
TRUTH_2x3 = "0.2,0.1,0.1;0.1,0.2,0.3"


@pytest.mark.parametrize("args, shape", [
    (["--mechanism-a", "qrr", "--q-a", "0.5", "--mechanism-b", "bitflip", "--epsilon-b", "1",
      "--truth", "0.4,0.1;0.1,0.4"], (2, 2)),
    (["--mechanism-a", "bitflip", "--epsilon-a", "1", "--mechanism-b", "krr", "--epsilon-b", "2", "--k-b", "3",
      "--truth", TRUTH_2x3], (2, 3)),
    (["--mechanism-a", "direct", "--mechanism-b", "oue", "--epsilon-b", "1", "--truth", TRUTH_2x3], (2, 3)),
    (["--mechanism-a", "sue", "--epsilon-a", "2", "--k-a", "3", "--mechanism-b", "direct", "--k-b", "2",
      "--truth", "0.2,0.1;0.1,0.2;0.3,0.1", "--confidence", "0.9"], (3, 2)),
], ids=["qrr-bitflip", "bitflip-krr", "direct-oue", "sue-direct"])
def test_joint_prints_one_json_object_per_repetition(args, shape):
    out = records(run("joint", *args, "--n", "600", "--reps", "3", "--seed", "2"))
    assert len(out) == 3
    for record in out:
        assert list(record) == KEYS and record["n"] == 600
        for key in KEYS[:4]:
            assert np.shape(record[key]) == shape
            assert all(isinstance(v, float) for row in record[key] for v in row)
        low, high = np.array(record["ci_low"]), np.array(record["ci_high"])
        assert ((0 <= low) & (low <= high) & (high <= 1)).all()
        assert 0.0 <= record["independence_p"] <= 1.0


def test_joint_randomizes_the_apportioned_table_with_the_seeded_generator():
    """Same seed in process: the cells are the table's fractions of n exactly (largest remainder),
    A randomized then B with numpy's default_rng(seed), estimated with ldp.estimate_joint."""
    a, b, n, seed = ldp.QRandomizedResponse("0.5"), ldp.KaryRR(1.0, 3), 200, 5
    out = records(run("joint", "--mechanism-a", "qrr", "--q-a", "0.5", "--mechanism-b", "krr", "--epsilon-b", "1",
                      "--k-b", "3", "--truth", "0.25,0.1,0.15;0.2,0.05,0.25", "--n", str(n), "--reps", "2",
                      "--seed", str(seed)))
    cells = np.repeat(np.arange(6), [50, 20, 30, 40, 10, 50])
    rng = np.random.default_rng(seed)
    for record in out:
        counts = ldp.JointCounts.from_reports(a, a.randomize(cells // 3, rng), b, b.randomize(cells % 3, rng))
        est = ldp.estimate_joint(a, b, counts)
        assert record["estimate"] == [list(row) for row in est.estimate]
        assert record["ci_high"] == [list(row) for row in est.ci_high]
        assert record["independence_p"] == ldp.independence(a, b, counts).p_value


def test_two_direct_questions_give_the_table_back_exactly():
    out = records(run("joint", "--mechanism-a", "direct", "--mechanism-b", "direct", "--truth", "0.5,0.25;0,0.25",
                      "--n", "400"))
    assert out[0]["estimate"] == [[0.5, 0.25], [0.0, 0.25]]


@pytest.mark.slow
def test_seeded_joint_runs_are_reproducible_and_seeds_matter():
    args = ["joint", "--mechanism-a", "krr", "--epsilon-a", "1", "--mechanism-b", "oue", "--epsilon-b", "1",
            "--truth", "0.3,0.2;0.1,0.1;0.2,0.1", "--n", "300", "--reps", "3"]
    first, again, other = run(*args, "--seed", "7"), run(*args, "--seed", "7"), run(*args, "--seed", "8")
    assert records(first) == records(again)
    assert records(first) != records(other)


JOINT = ["joint", "--n", "100"]
A_QRR = ["--mechanism-a", "qrr", "--q-a", "0.5"]
B_FLIP = ["--mechanism-b", "bitflip", "--epsilon-b", "1"]
T22 = ["--truth", "0.4,0.1;0.1,0.4"]


@pytest.mark.slow
@pytest.mark.parametrize("args, argument", [
    (JOINT + ["--mechanism-a", "rappor", "--epsilon-a", "1"] + B_FLIP + T22, "--mechanism-a"),
    (JOINT + A_QRR + ["--mechanism-b", "nope"] + T22, "--mechanism-b"),
    (JOINT + ["--mechanism-a", "qrr", "--epsilon-a", "1"] + B_FLIP + T22, "--epsilon-a"),
    (JOINT + ["--mechanism-a", "qrr"] + B_FLIP + T22, "--q-a"),
    (JOINT + ["--mechanism-a", "qrr", "--q-a", "1.5"] + B_FLIP + T22, "--q-a"),
    (JOINT + A_QRR + ["--mechanism-b", "bitflip"] + T22, "--epsilon-b"),
    (JOINT + A_QRR + ["--mechanism-b", "bitflip", "--epsilon-b", "20"] + T22, "--epsilon-b"),
    (JOINT + A_QRR + ["--mechanism-b", "direct", "--epsilon-b", "1"] + T22, "--epsilon-b"),
    (JOINT + A_QRR + ["--mechanism-b", "direct", "--q-b", "0.5"] + T22, "--q-b"),
    (JOINT + ["--mechanism-a", "bitflip", "--epsilon-a", "1", "--k-a", "3"] + B_FLIP + T22, "--k-a"),
    (JOINT + A_QRR + ["--mechanism-b", "krr", "--epsilon-b", "1", "--k-b", "3"] + T22, "--k-b"),
    (JOINT + A_QRR + ["--mechanism-b", "oue", "--epsilon-b", "1", "--k-b", "100"] + T22, "--k-b"),
    (JOINT + A_QRR + B_FLIP + ["--truth", "0.4,0.1;0.1,0.5"], "--truth"),
    (JOINT + A_QRR + B_FLIP + ["--truth", "0.4,0.1;0.5"], "--truth"),
    (JOINT + A_QRR + B_FLIP + ["--truth", "a,b;c,d"], "--truth"),
    (JOINT + A_QRR + B_FLIP + ["--truth", "1.4,-0.4;0,0"], "--truth"),
    (JOINT + A_QRR + B_FLIP + ["--truth", "0.2,0.1,0.1;0.1,0.2,0.3"], "--truth"),
    (JOINT + A_QRR + ["--mechanism-b", "krr", "--epsilon-b", "1"] + ["--truth", "0.5,0.5"], "--truth"),
    (JOINT + A_QRR + B_FLIP, "--truth"),
    (["joint"] + A_QRR + B_FLIP + T22, "--n"),
    (["joint", "--n", "0"] + A_QRR + B_FLIP + T22, "--n"),
    (JOINT + A_QRR + B_FLIP + T22 + ["--reps", "-1"], "--reps"),
    (JOINT + A_QRR + B_FLIP + T22 + ["--seed", "-1"], "--seed"),
    (JOINT + A_QRR + B_FLIP + T22 + ["--confidence", "1"], "--confidence"),
    (JOINT + A_QRR + B_FLIP + T22 + ["--confidence", "0.3"], "--confidence"),
    (JOINT + B_FLIP + T22, "--mechanism-a"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else value)
def test_bad_joint_arguments_exit_2_with_one_line_naming_the_argument(args, argument):
    result = run(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert argument in lines[0]


@pytest.mark.slow
def test_simulate_and_plan_take_a_direct_question():
    out = records(run("simulate", "--mechanism", "direct", "--k", "3", "--truth", "0.5,0.3,0.2", "--n", "100"))
    assert out[0]["estimate"] == [0.5, 0.3, 0.2]
    result = run("simulate", "--mechanism", "direct", "--epsilon", "1", "--k", "2", "--truth", "0.5,0.5", "--n", "9")
    assert result.returncode == 2 and "--epsilon" in result.stderr
    assert records(run("plan", "--mechanism", "direct", "--k", "2", "--margin", "0.05"))[0]["respondents"] == 385

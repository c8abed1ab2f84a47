"""`python -m ldp`, run from the repository root: in this process (`run`), and once as a process of its own, which
gives the same."""

from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.cli import main as cli

ROOT = Path(__file__).resolve().parents[3]


def run(*args: str) -> subprocess.CompletedProcess:
    """`python -m ldp ARGS`'s exit status, standard output and error, as a process would give them (an uncaught
    exception: status 1 and its traceback), but run in this one: a process each cost a quarter of a CPU-second,
    most of it importing numpy, over the two hundred commands of the CLI tests."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(list(args))
        except SystemExit as exit:  # argparse's errors: status 2
            status = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 1
        except Exception:  # noqa: BLE001 - the interpreter's own behaviour for a process
            traceback.print_exc()
            status = 1
    return subprocess.CompletedProcess(["python", "-m", "ldp", *args], status, out.getvalue(), err.getvalue())


def in_a_process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ldp", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("args", [
    ("simulate", "--mechanism", "qrr", "--q", "0.5", "--truth", "0.3", "--n", "200", "--reps", "2", "--seed", "7"),
    ("simulate", "--mechanism", "qrr", "--q", "2"),  # refused: exit 2, a usage line and the error
])
def test_python_dash_m_ldp_as_a_process_gives_what_run_gives(args):
    in_process, alone = run(*args), in_a_process(*args)
    assert (alone.returncode, alone.stdout, alone.stderr) == (in_process.returncode, in_process.stdout,
                                                              in_process.stderr)


def records(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


SIMULATE_KEYS = {"estimate", "std_error", "ci_low", "ci_high", "n"}


@pytest.mark.parametrize("args, entries", [
    (["--mechanism", "qrr", "--q", "0.5", "--truth", "0.3"], 1),
    (["--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.3"], 1),
    (["--mechanism", "krr", "--k", "4", "--epsilon", "1", "--truth", "0.55,0.25,0.12,0.08"], 4),
    (["--mechanism", "sue", "--k", "3", "--epsilon", "2", "--truth", "0.2,0.3,0.5"], 3),
    (["--mechanism", "oue", "--k", "5", "--epsilon", "1", "--truth", "0.2,0.2,0.2,0.2,0.2",
      "--interval", "exact", "--confidence", "0.9"], 5),
], ids=["qrr", "bitflip", "krr", "sue", "oue"])
def test_simulate_prints_one_json_object_per_repetition(args, entries):
    out = records(run("simulate", *args, "--n", "500", "--reps", "3", "--seed", "1"))
    assert len(out) == 3
    for record in out:
        assert set(record) == SIMULATE_KEYS
        assert record["n"] == 500
        for key in ("estimate", "std_error", "ci_low", "ci_high"):
            assert len(record[key]) == entries and all(isinstance(v, float) for v in record[key])
        assert all(0 <= lo <= hi <= 1 for lo, hi in zip(record["ci_low"], record["ci_high"], strict=True))


@pytest.mark.slow
def test_seeded_simulations_are_reproducible_and_seeds_matter():
    args = ["simulate", "--mechanism", "krr", "--k", "3", "--epsilon", "1", "--truth", "0.5,0.3,0.2",
            "--n", "300", "--reps", "4"]
    first, again, other = run(*args, "--seed", "7"), run(*args, "--seed", "7"), run(*args, "--seed", "8")
    assert records(first) == records(again)
    assert records(first) != records(other)


def test_simulate_randomizes_the_stated_panel_with_the_seeded_generator():
    """Same seed in process: answers are exactly the stated fractions of n, randomized with
    numpy's default_rng(seed), estimated with the mechanism's estimate()."""
    m, n, seed = ldp.KaryRR(1.0, 4), 200, 31
    truth = [0.5, 0.25, 0.15, 0.1]  # exact multiples of 1/200
    out = records(run("simulate", "--mechanism", "krr", "--k", "4", "--epsilon", "1", "--truth",
                      ",".join(map(str, truth)), "--n", str(n), "--reps", "2", "--seed", str(seed)))
    rng = np.random.default_rng(seed)
    values = np.repeat(np.arange(4), [100, 50, 30, 20])
    for record in out:
        est = m.estimate(m.counts(m.randomize(values, rng)), n)
        assert record["estimate"] == list(est.estimate)
        assert record["ci_low"] == list(est.ci_low) and record["ci_high"] == list(est.ci_high)


@pytest.mark.slow
def test_yes_no_simulate_reports_the_yes_fraction():
    out = records(run("simulate", "--mechanism", "bitflip", "--epsilon", "2", "--truth", "0.8", "--n", "400",
                      "--reps", "300", "--seed", "3"))
    m = ldp.BitFlip(2.0)
    yes = np.array([r["estimate"][0] for r in out])
    # The panel is fixed at 320 yes / 80 no, so Var = (320 p(1-p) + 80 q(1-q)) / (n (p-q))^2;
    # the mean of 300 reps is within 5 of its standard errors of 0.8.
    sd = math.sqrt(320 * m.p * (1 - m.p) + 80 * m.q_other * (1 - m.q_other)) / (400 * (m.p - m.q_other))
    assert abs(yes.mean() - 0.8) < 5 * sd / math.sqrt(len(yes))


@pytest.mark.parametrize("args, margin, confidence, expected", [
    (["--mechanism", "qrr", "--q", "0.5"], 0.05, None, None),
    (["--mechanism", "bitflip", "--epsilon", "1"], 0.03, "0.9", None),
    (["--mechanism", "oue", "--k", "8", "--epsilon", "2"], 0.02, None, "0.1"),
])
def test_plan_prints_the_respondents_needed(args, margin, confidence, expected):
    extra = (["--confidence", confidence] if confidence else []) + (["--expected", expected] if expected else [])
    out = records(run("plan", *args, "--margin", str(margin), *extra))
    assert len(out) == 1
    plan = out[0]
    m = ldp.from_dict(plan["mechanism"])
    z = stats.norm.ppf(1 - (1 - float(confidence or 0.95)) / 2)
    lam = 0.5 if expected is None else m.q_other + float(expected) * (m.p - m.q_other)
    assert plan["respondents"] == math.ceil(z**2 * lam * (1 - lam) / (margin**2 * (m.p - m.q_other) ** 2))
    assert plan["effective_epsilon"] == m.effective_epsilon
    assert plan["margin"] == margin


def test_help_exits_cleanly():
    result = run("--help")
    assert result.returncode == 0
    assert "simulate" in result.stdout and "plan" in result.stdout


SIM = ["simulate", "--n", "100"]


@pytest.mark.slow
@pytest.mark.parametrize("args, argument", [
    (SIM + ["--mechanism", "krr", "--epsilon", "1", "--truth", "0.5,0.5"], "--k"),
    (SIM + ["--mechanism", "krr", "--k", "100", "--epsilon", "1", "--truth", "0.5,0.5"], "--k"),
    (SIM + ["--mechanism", "bitflip", "--k", "3", "--epsilon", "1", "--truth", "0.5"], "--k"),
    (SIM + ["--mechanism", "bitflip", "--q", "0.5", "--truth", "0.5"], "q"),
    (SIM + ["--mechanism", "qrr", "--truth", "0.5"], "--q"),
    (SIM + ["--mechanism", "qrr", "--q", "1.5", "--truth", "0.5"], "--q"),
    (SIM + ["--mechanism", "bitflip", "--epsilon", "11", "--truth", "0.5"], "--epsilon"),
    (SIM + ["--mechanism", "oue", "--k", "3", "--epsilon", "0.01", "--truth", "0.2,0.3,0.5"], "--epsilon"),
    (SIM + ["--mechanism", "krr", "--k", "3", "--epsilon", "1", "--truth", "0.5,0.6,0.1"], "--truth"),
    (SIM + ["--mechanism", "krr", "--k", "3", "--epsilon", "1", "--truth", "0.5,0.5"], "--truth"),
    (SIM + ["--mechanism", "krr", "--k", "3", "--epsilon", "1", "--truth", "a,b,c"], "--truth"),
    (SIM + ["--mechanism", "bitflip", "--epsilon", "1", "--truth", "1.5"], "--truth"),
    (["simulate", "--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.5", "--n", "0"], "--n"),
    (["simulate", "--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.5", "--n", "-3"], "--n"),
    (["simulate", "--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.5", "--n", "ten"], "--n"),
    (["simulate", "--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.5"], "--n"),
    (SIM + ["--mechanism", "rappor", "--epsilon", "1", "--truth", "0.5"], "--mechanism"),
    (SIM + ["--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.5", "--interval", "wald"], "--interval"),
    (SIM + ["--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.5", "--confidence", "1"], "--confidence"),
    (["plan", "--mechanism", "bitflip", "--epsilon", "1", "--margin", "0"], "--margin"),
    (["plan", "--mechanism", "bitflip", "--epsilon", "1"], "--margin"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else value)
def test_bad_arguments_exit_2_with_one_line_naming_the_argument(args, argument):
    result = run(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert argument in lines[0]


@pytest.mark.parametrize("args, argument", [
    # --confidence is parsed as (0, 1) but ldp needs [0.5, 1): ValueError from check_confidence.
    (SIM + ["--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.5", "--confidence", "0.3"], "--confidence"),
    (["plan", "--mechanism", "bitflip", "--epsilon", "1", "--margin", "0.05", "--confidence", "0.3"],
     "--confidence"),
    # QRandomizedResponse('inf') raises OverflowError, which _mechanism() does not catch.
    (SIM + ["--mechanism", "qrr", "--q", "inf", "--truth", "0.5"], "--q"),
    # default_rng(-1) raises ValueError.
    (SIM + ["--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.5", "--seed", "-1"], "--seed"),
], ids=["simulate-confidence", "plan-confidence", "q-inf", "seed-negative"])
def test_out_of_range_values_that_reach_ldp_still_exit_2(args, argument):
    result = run(*args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and argument in lines[0]


def test_plan_of_a_direct_question_prints_strict_json_with_no_epsilon():
    done = run("plan", "--mechanism", "direct", "--k", "3", "--margin", "0.05")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout, parse_constant=lambda name: pytest.fail(f"not JSON: {name}"))
    assert printed["effective_epsilon"] is None and printed["respondents"] == 385

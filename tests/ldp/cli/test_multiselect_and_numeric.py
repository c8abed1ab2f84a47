"""`python -m ldp simulate` and `plan` for multi-select and numeric questions (test_main's `run`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from tests.ldp.cli.test_main import records, run

KEYS = {"estimate", "std_error", "ci_low", "ci_high", "n"}


@pytest.mark.parametrize("args, entries", [
    (["--mechanism", "multiselect", "--epsilon", "2", "--k", "4", "--truth", "0.5,0.9,0.0,1"], 4),
    (["--mechanism", "multiselect", "--epsilon", "2", "--k", "4", "--at-most", "2", "--truth", "0.5,0.5,0.3,0.1"], 4),
    (["--mechanism", "onebit", "--epsilon", "1", "--lo", "0", "--hi", "10", "--step", "0.5", "--truth",
      "0:0.25,7.5:0.75"], 1),
    (["--mechanism", "dlaplace", "--epsilon", "1", "--lo", "-2", "--hi", "2", "--step", "1", "--truth=-2:1"], 1),
], ids=["multiselect", "multiselect-at-most", "onebit", "dlaplace"])
def test_simulate_prints_one_json_object_per_repetition(args, entries):
    out = records(run("simulate", *args, "--n", "400", "--reps", "3", "--seed", "2"))
    assert len(out) == 3
    for record in out:
        assert set(record) == KEYS and record["n"] == 400
        assert all(len(record[key]) == entries for key in KEYS - {"n"})
        assert all(lo <= hi for lo, hi in zip(record["ci_low"], record["ci_high"], strict=True))


def test_numeric_simulate_is_the_stated_panel_randomized_with_the_seeded_generator():
    m, n, seed = ldp.DiscreteLaplace(1.0, "0", "10", "0.5"), 200, 5
    out = records(run("simulate", "--mechanism", "dlaplace", "--epsilon", "1", "--lo", "0", "--hi", "10", "--step",
                      "0.5", "--truth", "0:0.25,7.5:0.75", "--n", str(n), "--reps", "2", "--seed", str(seed)))
    rng = np.random.default_rng(seed)
    values = np.repeat([0, 15], [50, 150])
    for record in out:
        est = m.estimate_mean(*m.histogram(m.randomize(values, rng)))
        assert record["estimate"] == [est.mean] and record["ci_low"] == [est.ci_low]


def test_multiselect_simulate_hands_out_ticks_in_turn_within_at_most():
    m, n, seed = ldp.MultiSelect(2.0, 3, at_most=1), 10, 4
    out = records(run("simulate", "--mechanism", "multiselect", "--epsilon", "2", "--k", "3", "--at-most", "1",
                      "--truth", "0.3,0.5,0.2", "--n", str(n), "--seed", str(seed)))
    truth = np.zeros((n, 3), dtype=np.uint8)
    truth[0:3, 0], truth[3:8, 1], truth[8:10, 2] = 1, 1, 1
    rng = np.random.default_rng(seed)
    est = m.estimate(m.counts(m.randomize(truth, rng)), n)
    assert out[0]["estimate"] == list(est.estimate)


def test_onebit_simulate_is_unbiased_for_the_panel_mean():
    out = records(run("simulate", "--mechanism", "onebit", "--epsilon", "2", "--lo", "0", "--hi", "4", "--step", "1",
                      "--truth", "1:0.5,4:0.5", "--n", "500", "--reps", "200", "--seed", "8"))
    m = ldp.OneBitMean(2.0, "0", "4", "1")
    means = np.array([r["estimate"][0] for r in out])
    sd = math.sqrt((m.report_variance(1) + m.report_variance(4)) / 2 / 500)
    assert abs(means.mean() - 2.5) < 5 * sd / math.sqrt(len(means))  # 5 standard errors of the mean


@pytest.mark.parametrize("args, margin, expected", [
    (["--mechanism", "onebit", "--epsilon", "1", "--lo", "0", "--hi", "10", "--step", "1"], 0.5, None),
    (["--mechanism", "dlaplace", "--epsilon", "2", "--lo", "0", "--hi", "100", "--step", "1"], 3.0, None),
    (["--mechanism", "multiselect", "--epsilon", "1", "--k", "5", "--at-most", "2"], 0.05, None),
])
def test_plan_prints_the_respondents_needed(args, margin, expected):
    plan = records(run("plan", *args, "--margin", str(margin)))[0]
    m = ldp.from_dict(plan["mechanism"])
    if m.name in ldp.NUMERIC:
        assert plan["respondents"] == ldp.mean_respondents_needed(m, margin)
    else:
        z = stats.norm.ppf(0.975)
        assert plan["respondents"] == math.ceil(z**2 / (4 * margin**2 * (m.p - m.q_other) ** 2))
    assert plan["effective_epsilon"] == m.effective_epsilon


SIM = ["simulate", "--n", "100"]
GRID = ["--lo", "0", "--hi", "10", "--step", "1"]


@pytest.mark.slow
@pytest.mark.parametrize("args, argument", [
    (SIM + ["--mechanism", "onebit", "--epsilon", "1", "--lo", "0", "--hi", "10", "--truth", "0:1"], "--step"),
    (SIM + ["--mechanism", "onebit", "--epsilon", "1", *GRID, "--k", "3", "--truth", "0:1"], "--k"),
    (SIM + ["--mechanism", "dlaplace", *GRID, "--truth", "0:1"], "--epsilon"),
    (SIM + ["--mechanism", "dlaplace", "--epsilon", "1", "--lo", "5", "--hi", "1", "--step", "1", "--truth", "1:1"],
     "--lo"),
    (SIM + ["--mechanism", "dlaplace", "--epsilon", "1", "--lo", "0", "--hi", "1", "--step", "0.3", "--truth", "0:1"],
     "--step"),
    (SIM + ["--mechanism", "onebit", "--epsilon", "1", *GRID, "--truth", "0.5:1"], "--truth"),
    (SIM + ["--mechanism", "onebit", "--epsilon", "1", *GRID, "--truth", "0:0.5,1:0.4"], "--truth"),
    (SIM + ["--mechanism", "onebit", "--epsilon", "1", *GRID, "--truth", "0.3"], "--truth"),
    (SIM + ["--mechanism", "multiselect", "--epsilon", "1", "--truth", "0.5,0.5"], "--k"),
    (SIM + ["--mechanism", "multiselect", "--epsilon", "1", "--k", "3", "--truth", "0.5,0.5"], "--truth"),
    (SIM + ["--mechanism", "multiselect", "--epsilon", "1", "--k", "3", "--at-most", "1", "--truth", "0.5,0.5,0.5"],
     "--truth"),
    (SIM + ["--mechanism", "multiselect", "--epsilon", "1", "--k", "3", "--at-most", "3", "--truth", "0.5,0.5,0.5"],
     "--at-most"),
    (SIM + ["--mechanism", "multiselect", "--epsilon", "1", "--k", "3", *GRID, "--truth", "0.5,0.5,0.5"], "--lo"),
    (SIM + ["--mechanism", "krr", "--epsilon", "1", "--k", "3", "--at-most", "1", "--truth", "0.5,0.3,0.2"],
     "--at-most"),
    (["plan", "--mechanism", "krr", "--epsilon", "1", "--k", "3", "--margin", "2"], "--margin"),
    (["plan", "--mechanism", "onebit", "--epsilon", "1", *GRID, "--margin", "1", "--expected", "0.5"], "--expected"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else value)
def test_bad_arguments_exit_2_with_one_line_naming_the_argument(args, argument):
    result = run(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and argument in lines[0], result.stderr

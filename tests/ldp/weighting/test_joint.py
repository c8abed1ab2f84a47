"""ldp.weighting.joint: a cross-tab's joint and conditional fractions under raked weights.

R's survey package is the independent check: from the same raked weights, calibrate(calfun = "raking") and
svymean of the score products (joint cells), svyratio of the products over one question's scores (conditional
fractions, the break-down's figures) give the same estimates and linearization standard errors
(tests/ldp/r/weighted_crosstab.R). In simulation, a sample that over-represents some (sex, region) cells gets
joint cells and break-down fractions the unweighted figures miss, and the weighted intervals cover at the
nominal rate (95.5% and 94.7% over 1,500 repetitions of another seed). About 9 s on one core (R, and 600 simulated
surveys: 93% is then about 2 standard errors of the coverage below its true value; this seed measures 94.7% and
93.8%).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.weighting.estimates import weighted_fractions
from ldp.weighting.joint import weighted_conditional, weighted_joint
from ldp.weighting.raking import Raked, coded_margin, rake

SCRIPT = Path(__file__).resolve().parents[1] / "r" / "weighted_crosstab.R"
MARGINS = {"sex": {"f": 0.5, "m": 0.5}, "region": {"north": 0.4, "south": 0.35, "east": 0.25}}
CELLS = [(s, r) for s in ("f", "m") for r in ("north", "south", "east")]
POPULATION = np.array([0.22, 0.16, 0.12, 0.18, 0.19, 0.13])  # margins as MARGINS
SELECTION = np.array([2.0, 1.0]).repeat(3) * np.tile([1.0, 0.5, 2.0], 2)  # who the sample reaches
YES = np.array([0.15, 0.25, 0.35, 0.45, 0.55, 0.65])  # P(A = yes | cell)
# P(B = option | cell, A): rows cells, then A = no / yes; B has 3 options, the last common in the south only.
B_GIVEN = np.array([[[0.7, 0.2, 0.1], [0.5, 0.3, 0.2]], [[0.3, 0.2, 0.5], [0.1, 0.2, 0.7]],
                    [[0.7, 0.2, 0.1], [0.6, 0.3, 0.1]], [[0.7, 0.2, 0.1], [0.5, 0.3, 0.2]],
                    [[0.2, 0.2, 0.6], [0.1, 0.1, 0.8]], [[0.8, 0.1, 0.1], [0.7, 0.2, 0.1]]])
A, B, SEX = ldp.QRandomizedResponse("0.6"), ldp.KaryRR(1.5, 3), ldp.Direct(2)


def joint_truth() -> np.ndarray:
    """P(A = a and B = b) in the population, (2, 3)."""
    by_a = np.stack([1 - YES, YES], axis=1)  # (cells, 2)
    return np.einsum("c,ca,cab->ab", POPULATION, by_a, B_GIVEN)


def break_down_truth() -> np.ndarray:
    """P(B = b | sex = s), (2, 3): rows f, m."""
    by_a = np.stack([1 - YES, YES], axis=1)
    per_cell = np.einsum("ca,cab->cb", by_a, B_GIVEN)
    sex = np.array([0, 0, 0, 1, 1, 1])
    return np.stack([POPULATION[sex == s] @ per_cell[sex == s] / POPULATION[sex == s].sum() for s in (0, 1)])


def draw(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """n respondents of the selective sample: sex and region (codes in MARGINS' order), their reports to A and B."""
    sample = POPULATION * SELECTION
    cell = rng.choice(len(CELLS), size=n, p=sample / sample.sum())
    a = (rng.random(n) < YES[cell]).astype(np.int64)
    cumulative = B_GIVEN[cell, a].cumsum(axis=1)
    b = np.minimum((rng.random(n)[:, None] > cumulative).sum(axis=1), 2)
    return {"sex": cell // 3, "region": cell % 3, "ra": A.randomize(a, rng), "rb": B.randomize(b, rng)}


def raked(found: dict[str, np.ndarray], cap: float | None = 5.0) -> Raked:
    return rake([coded_margin(name, found[name], shares) for name, shares in MARGINS.items()], cap=cap)


def names(found: dict[str, np.ndarray], column: str) -> list[str]:
    return np.asarray(list(MARGINS[column]))[found[column]].tolist()


def rscript() -> str:
    found = shutil.which("Rscript")
    assert found, "Rscript not found: `make system-deps` installs Debian's r-base-core"
    return found


def test_it_agrees_with_r_survey_svymean_and_svyratio(tmp_path):
    found = draw(np.random.default_rng(8), 3000)
    design = raked(found, cap=None)
    with (tmp_path / "data.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["ra", "rb", "w", "sex", "region"], *zip(
            found["ra"].tolist(), found["rb"].tolist(), map(repr, design.weights.tolist()), names(found, "sex"),
            names(found, "region"), strict=True)])
    with (tmp_path / "margins.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["column", "value", "share"],
                                    *[[c, v, s] for c in MARGINS for v, s in MARGINS[c].items()]])
    with (tmp_path / "channels.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["question", "k", "p", "q"], ["a", A.k, repr(A.p), repr(A.q_other)],
                                    ["b", B.k, repr(B.p), repr(B.q_other)]])
    done = subprocess.run([rscript(), "--vanilla", str(SCRIPT), *(str(tmp_path / f) for f in (
        "data.csv", "margins.csv", "channels.csv", "out.csv"))], capture_output=True, text=True, timeout=300,
        check=False)
    assert done.returncode == 0, done.stderr
    expected: dict[str, np.ndarray] = {kind: np.full((2, 3, 2), np.nan) for kind in ("joint", "b_given_a")}
    expected["a_given_b"] = np.full((3, 2, 2), np.nan)
    with (tmp_path / "out.csv").open() as file:
        for row in csv.DictReader(file):
            expected[row["kind"]][int(row["row"]), int(row["column"])] = (float(row["estimate"]), float(row["se"]))
    joint = weighted_joint(A, found["ra"], B, found["rb"], design)
    given_a = weighted_conditional(A, found["ra"], B, found["rb"], design, given="a")
    given_b = weighted_conditional(A, found["ra"], B, found["rb"], design, given="b")
    for kind, ours in (("joint", joint), ("b_given_a", given_a), ("a_given_b", given_b)):
        assert np.abs(np.array(ours.estimate) - expected[kind][..., 0]).max() < 1e-9, kind
        assert np.abs(np.array(ours.std_error) - expected[kind][..., 1]).max() < 1e-9, kind


def test_without_weights_it_is_the_unweighted_cross_tab():
    """Weights of 1: the same estimates, and variances n / (n - 1) times the plug-in ones (the sample variance)."""
    found = draw(np.random.default_rng(9), 2000)
    n = 2000
    counts = ldp.JointCounts.from_reports(A, found["ra"], B, found["rb"])
    plain, weighted = ldp.estimate_joint(A, B, counts), weighted_joint(A, found["ra"], B, found["rb"],
                                                                       Raked.unweighted(n))
    assert np.allclose(weighted.estimate, plain.estimate, rtol=0, atol=1e-13)
    assert np.allclose(np.square(weighted.std_error), np.square(plain.std_error) * n / (n - 1), rtol=1e-10)
    assert np.allclose(weighted.row_sums, plain.row_sums, atol=1e-13)
    for given in ("a", "b"):
        plain_c = ldp.estimate_conditional(A, B, counts, given=given)
        weighted_c = weighted_conditional(A, found["ra"], B, found["rb"], Raked.unweighted(n), given=given)
        assert np.allclose(weighted_c.estimate, plain_c.estimate, rtol=0, atol=1e-13)
        assert np.allclose(np.square(weighted_c.std_error), np.square(plain_c.std_error) * n / (n - 1), rtol=1e-10)


def test_two_direct_questions_get_the_weighted_fractions_wilson_interval():
    """A direct x direct cell is a weighted fraction of the pairs: Wilson at its effective n, as weighted_fractions."""
    rng = np.random.default_rng(10)
    found = draw(rng, 1500)
    design = raked(found)
    joint = weighted_joint(SEX, found["sex"], ldp.Direct(3), found["region"], design)
    pairs = weighted_fractions(ldp.Direct(6), found["sex"] * 3 + found["region"], design)
    assert np.allclose(np.ravel(joint.estimate), pairs.estimate, atol=1e-13)
    assert np.allclose(np.ravel(joint.std_error), pairs.std_error, rtol=1e-10)
    assert np.allclose(np.ravel(joint.ci_low), pairs.ci_low, atol=1e-9)
    assert np.allclose(np.ravel(joint.ci_high), pairs.ci_high, atol=1e-9)


def test_it_rejects_reports_that_do_not_match_the_weights():
    with pytest.raises(ValueError, match="one report per weight"):
        weighted_joint(SEX, [0, 1], SEX, [0, 1], Raked.unweighted(3))
    with pytest.raises(ValueError, match="given must be"):
        weighted_conditional(SEX, [0, 1], SEX, [0, 1], Raked.unweighted(2), given="c")


def test_weighted_cells_and_break_downs_recover_the_population_and_cover():
    """A cell of the cross-tab (A yes, B option 2) and a break-down fraction (B option 2 among men): the raked
    intervals cover at >= 93% (95% nominal) where the unweighted ones miss; the z-scores are centred with unit
    spread (tolerances from their standard error over the repetitions)."""
    rng = np.random.default_rng(12)
    reps, n = 600, 2000
    cell_truth, down_truth = joint_truth()[1, 2], break_down_truth()[1, 2]
    hits = {"cell": 0, "down": 0, "cell_unweighted": 0, "down_unweighted": 0}
    z: dict[str, list[float]] = {"cell": [], "down": []}
    for _ in range(reps):
        found = draw(rng, n)
        design = raked(found)  # capped at 5 times the median, as the app does (the median rake's largest is 4)
        sex = found["sex"]
        cell = weighted_joint(A, found["ra"], B, found["rb"], design)
        down = weighted_conditional(SEX, sex, B, found["rb"], design, given="a")
        plain_cell = ldp.estimate_joint(A, B, ldp.JointCounts.from_reports(A, found["ra"], B, found["rb"]))
        plain_down = ldp.estimate_conditional(SEX, B, ldp.JointCounts.from_reports(SEX, sex, B, found["rb"]))
        hits["cell"] += cell.ci_low[1][2] <= cell_truth <= cell.ci_high[1][2]
        hits["down"] += down.ci_low[1][2] <= down_truth <= down.ci_high[1][2]
        hits["cell_unweighted"] += plain_cell.ci_low[1][2] <= cell_truth <= plain_cell.ci_high[1][2]
        hits["down_unweighted"] += plain_down.ci_low[1][2] <= down_truth <= plain_down.ci_high[1][2]
        z["cell"].append((cell.estimate[1][2] - cell_truth) / cell.std_error[1][2])
        z["down"].append((down.estimate[1][2] - down_truth) / down.std_error[1][2])
    assert hits["cell"] / reps >= 0.93 and hits["down"] / reps >= 0.93, hits
    assert hits["cell_unweighted"] / reps < 0.75 and hits["down_unweighted"] / reps < 0.75, hits
    for name, values in z.items():
        # mean z within 4 of its standard errors (1 / sqrt(reps)); sd within 4 of its (about 1 / sqrt(2 reps))
        assert abs(np.mean(values)) < 4 / np.sqrt(reps), name
        assert abs(np.std(values) - 1) < 4 / np.sqrt(2 * reps), name

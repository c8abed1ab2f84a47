"""ldp.weighting.association: the independence test of a weighted cross-tab (Rao and Scott's F).

R's survey package is the independent check: svychisq(statistic = "F") on the same raked design
(tests/ldp/r/weighted_independence.R), for a 2 x 3 table of randomized reports and for each bit of a unary
question. In simulation, a sample that over-represents one region, where the population's answers are
independent but both depend on the region, makes the unweighted test reject most of the time; the weighted one
rejects at its nominal rate.
"""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import numpy as np

import ldp
from ldp.joint.association import pearson
from ldp.weighting.association import rao_scott, weighted_independence
from ldp.weighting.estimates import indicators
from ldp.weighting.raking import Raked, coded_margin, rake
from tests.ldp.weighting.test_joint import MARGINS, A, B, draw, names, raked, rscript

SCRIPT = Path(__file__).resolve().parents[1] / "r" / "weighted_independence.R"
UNARY = ldp.OptimizedUnary(2.0, 3)


def run_r(tmp_path, found: dict[str, np.ndarray], design: Raked, sides: dict[str, list]) -> dict[str, dict]:
    with (tmp_path / "data.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["ra", *sides, "w", "sex", "region"], *zip(
            found["ra"].tolist(), *sides.values(), map(repr, design.weights.tolist()), names(found, "sex"),
            names(found, "region"), strict=True)])
    with (tmp_path / "margins.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["column", "value", "share"],
                                    *[[c, v, s] for c in MARGINS for v, s in MARGINS[c].items()]])
    done = subprocess.run([rscript(), "--vanilla", str(SCRIPT), *(str(tmp_path / f) for f in (
        "data.csv", "margins.csv", "out.csv"))], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "out.csv").open() as file:
        return {row["column"]: {k: float(v) for k, v in row.items() if k != "column"} for row in csv.DictReader(file)}


def close(ours: float, theirs: float) -> bool:
    return abs(ours - theirs) <= 1e-8 * max(1.0, abs(theirs))


def test_it_agrees_with_r_survey_svychisq_on_a_table_and_on_each_bit_of_a_unary_question(tmp_path):
    found = draw(np.random.default_rng(8), 3000)
    design = raked(found, cap=None)
    bits = UNARY.randomize(np.minimum(found["rb"], 2), np.random.default_rng(9))
    expected = run_r(tmp_path, found, design, {"rb": found["rb"].tolist(), **{
        f"rb_bit{j}": bits[:, j].tolist() for j in range(UNARY.k)}})
    table = weighted_independence(A, found["ra"], B, found["rb"], design,
                                  ldp.JointCounts.from_reports(A, found["ra"], B, found["rb"]))
    r = expected["rb"]
    assert (table.method, table.tables) == ("rao_scott", 1)
    assert all(close(o, t) for o, t in ((table.statistic, r["statistic"]), (table.df, r["ndf"]),
                                        (table.denominator_df, r["ddf"]), (table.p_value, r["p"]))), (table, r)
    per_bit = weighted_independence(A, found["ra"], UNARY, bits, design,
                                    ldp.JointCounts.from_reports(A, found["ra"], UNARY, bits))
    smallest = min((expected[f"rb_bit{j}"] for j in range(UNARY.k)), key=lambda row: row["p"])
    assert per_bit.tables == UNARY.k
    assert close(per_bit.p_value, min(1.0, UNARY.k * smallest["p"])), (per_bit, expected)
    assert all(close(getattr(per_bit, o), smallest[t]) for o, t in (
        ("statistic", "statistic"), ("df", "ndf"), ("denominator_df", "ddf"))), (per_bit, smallest)


def test_without_weights_it_is_pearsons_statistic_over_its_degrees_of_freedom():
    """Unweighted, the generalized design effects are all n / (n - 1) (the linearization's factor), exactly."""
    found = draw(np.random.default_rng(3), 500)
    n = found["ra"].size
    f, d0, nu = rao_scott(Raked.unweighted(n), indicators(A, found["ra"]), indicators(B, found["rb"]))
    x2, df = pearson(ldp.JointCounts.from_reports(A, found["ra"], B, found["rb"]).pairs)
    assert (round(d0, 12), nu) == (df, n - 1)
    assert abs(f - x2 * (n - 1) / (n * df)) < 1e-12 * x2


def test_its_effect_size_is_the_unweighted_reports_and_a_side_with_one_option_present_tests_nothing():
    found = draw(np.random.default_rng(4), 400)
    counts = ldp.JointCounts.from_reports(A, found["ra"], B, found["rb"])
    found_test = weighted_independence(A, found["ra"], B, found["rb"], raked(found), counts)
    plain = ldp.independence(A, B, counts)
    assert (found_test.phi_squared, found_test.cramers_v) == (plain.phi_squared, plain.cramers_v)
    one_option = np.zeros_like(found["ra"])
    assert rao_scott(raked(found), indicators(A, one_option), indicators(B, found["rb"]))[0] == 0.0
    assert weighted_independence(A, one_option, B, found["rb"], raked(found), ldp.JointCounts.from_reports(
        A, one_option, B, found["rb"])).p_value == 1.0


def test_a_table_with_empty_cells_in_a_cycle_gets_a_test_not_an_error():
    """Rows 0 and 1 never meet columns 0 and 1 (a cycle of empty cells): with D = diag(p_hat), C' D^-1 C would be
    singular or nearly so (under 100 random weightings, about 6 in 100 then fail or give d0 outside (0, 4]); D under
    independence keeps F finite and d0 within (0, df] every time."""
    rng = np.random.default_rng(5)
    rows = np.concatenate([[0, 1] * 40, [2] * 120])
    columns = np.concatenate([[2] * 80, rng.integers(0, 3, size=120)])
    d = ldp.Direct(3)
    counts = ldp.JointCounts.from_reports(d, rows, d, columns)
    for _ in range(100):
        design = Raked.fixed(rng.uniform(0.5, 2.0, size=rows.size))
        f, d0, nu = rao_scott(design, indicators(d, rows), indicators(d, columns))
        assert np.isfinite(f) and f > 0 and 0 < d0 <= 4 and nu == rows.size - 1
        assert 0 <= weighted_independence(d, rows, d, columns, design, counts).p_value <= 1


# Independent in the population, both related to the region: P(A | region) and P(B | region) with zero covariance
# over the (equal) regions; a sample of regions 60/10/30% makes them related in the sample.
REGIONS = {"north": 1 / 3, "south": 1 / 3, "east": 1 / 3}
A_YES, B_YES, REACHED = np.array([0.1, 0.5, 0.9]), np.array([0.9, 0.1, 0.9]), np.array([0.6, 0.1, 0.3])


def test_under_independence_in_the_population_it_rejects_at_its_level_where_the_unweighted_test_does_not():
    """400 selective samples of 3,000 direct answers. The weighted test's rejections at 5% are within 3 standard
    errors of 5% (sqrt(0.05 x 0.95 / 400) = 1.1%); the unweighted test (sample correlation about -0.05, z about 2.8)
    rejects most of the time."""
    rng, reps, n, d = np.random.default_rng(21), 400, 3000, ldp.Direct(2)
    weighted = unweighted = 0
    for _ in range(reps):
        region = rng.choice(3, size=n, p=REACHED)
        a, b = (rng.random(n) < A_YES[region]).astype(np.int64), (rng.random(n) < B_YES[region]).astype(np.int64)
        design = rake([coded_margin("region", region, REGIONS)], cap=None)
        counts = ldp.JointCounts.from_reports(d, a, d, b)
        weighted += weighted_independence(d, a, d, b, design, counts).p_value < 0.05
        unweighted += ldp.independence(d, d, counts).p_value < 0.05
    assert abs(weighted / reps - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / reps), weighted
    assert unweighted / reps > 0.5, unweighted

"""ldp.weighting.raking and ldp.weighting.estimates: weights to population margins, the cap, and the raked estimate's
variance.

R's survey package (Debian's r-cran-survey) is the independent check: its rake() gives the same weights,
and calibrate(calfun = "raking") from them the same linearization standard error (the residuals of the
regression on the margins weighted by the raked weights, tests/ldp/r/rake_survey.R). In simulation the
raked estimate recovers a population fraction the unweighted one misses, its intervals covering at the
nominal rate. About 15 s (R, and 300 simulated surveys).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.weighting.estimates import weighted_fractions, weighted_mean
from ldp.weighting.raking import Raked, RakingError, coded_margin, margin, rake

SCRIPT = Path(__file__).resolve().parents[1] / "r" / "rake_survey.R"
MARGINS = {"sex": {"f": 0.5, "m": 0.5}, "region": {"north": 0.4, "south": 0.35, "east": 0.25}}

# A population of (sex, region) cells, and a sample that reaches each cell with a probability a_sex b_region:
# raking's multiplicative weights undo exactly that selection.
CELLS = [(s, r) for s in ("f", "m") for r in ("north", "south", "east")]
POPULATION = np.array([0.22, 0.16, 0.12, 0.18, 0.19, 0.13])  # sums to 1; margins as MARGINS
SELECTION = np.array([2.0, 1.0]).repeat(3) * np.tile([1.0, 0.6, 1.5], 2)
YES = np.array([0.15, 0.25, 0.35, 0.45, 0.55, 0.65])  # the true yes fraction in each cell


def rscript() -> str:
    found = shutil.which("Rscript")
    assert found, "Rscript not found: `make system-deps` installs Debian's r-base-core"
    return found


def draw(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n respondents of the selective sample: sex, region and true answer."""
    sample = POPULATION * SELECTION
    cell = rng.choice(len(CELLS), size=n, p=sample / sample.sum())
    sex = np.array([CELLS[c][0] for c in range(len(CELLS))])[cell]
    region = np.array([CELLS[c][1] for c in range(len(CELLS))])[cell]
    return sex, region, (rng.random(n) < YES[cell]).astype(np.int64)


def margins_of(sex: np.ndarray, region: np.ndarray) -> list:
    return [margin("sex", sex, MARGINS["sex"]), margin("region", region, MARGINS["region"])]


def test_the_margins_hold_and_the_weights_say_what_they_cost():
    rng = np.random.default_rng(1)
    sex, region, _ = draw(rng, 5000)
    design = rake(margins_of(sex, region))
    for m in design.margins:
        shares = np.bincount(m.codes, weights=design.weights) / design.weights.sum()
        assert np.abs(shares - m.shares).max() < 1e-10
    w = design.weights
    summary = design.summary()
    assert summary["design_effect"] == pytest.approx(len(w) * (w**2).sum() / w.sum() ** 2, rel=1e-12)
    assert summary["effective_n"] == pytest.approx(len(w) / summary["design_effect"], rel=1e-12)
    assert (summary["min"], summary["max"]) == (w.min(), w.max())
    assert abs(w.sum() - len(w)) < 1e-6 and design.converged and design.cap_met


def test_the_cap_holds_after_raking_again_and_the_margins_still_hold():
    rng = np.random.default_rng(2)
    n = 4000
    # Few men (20%, half the population), and few of them in the north (10%, 40% of the population): the
    # northern men's weights are far above the median until capped, and the other men's can make up for them.
    sex = rng.choice(["f", "m"], size=n, p=[0.8, 0.2])
    region = np.where(sex == "m", rng.choice(["north", "south", "east"], size=n, p=[0.1, 0.55, 0.35]),
                      rng.choice(["north", "south", "east"], size=n, p=[0.4, 0.35, 0.25]))
    plain = rake(margins_of(sex, region), cap=None)
    assert plain.weights.max() / np.median(plain.weights) > 5
    capped = rake(margins_of(sex, region), cap=5.0)
    assert capped.cap_met and capped.cap_rounds >= 1
    assert capped.weights.max() / np.median(capped.weights) <= 5 * (1 + 1e-8)
    for m in capped.margins:
        assert np.abs(np.bincount(m.codes, weights=capped.weights) / n - m.shares).max() < 1e-10


def test_a_cap_that_cannot_hold_with_the_margins_is_reported_and_the_margins_win():
    sex = np.array(["f"] * 90 + ["m"] * 10)
    design = rake([margin("sex", sex, {"f": 0.5, "m": 0.5})], cap=2.0)  # one margin: one set of raked weights
    assert not design.cap_met and "could not be capped" in design.messages[0]
    assert design.weights[-1] / design.weights[0] == pytest.approx(9.0)


@pytest.mark.parametrize("column, shares, message", [
    (["a", "b", "c"], {"a": 0.5, "b": 0.5}, "no population share for the value(s) ['c']"),
    (["a", "a"], {"a": 0.5, "b": 0.5}, "no respondents in the categories ['b']"),
    (["a", "b"], {"a": 0.6, "b": 0.6}, "must be positive and sum to 1"),
    (["a", "b"], {"a": 1.0, "b": 0.0}, "must be positive and sum to 1"),
])
def test_it_rejects_margins_it_cannot_rake_to(column, shares, message):
    with pytest.raises(RakingError, match=None) as error:
        margin("g", column, shares)
    assert message in str(error.value)


def test_without_weights_the_estimate_is_the_unweighted_one():
    rng = np.random.default_rng(3)
    mechanism = ldp.KaryRR(1.0, 3)
    reports = mechanism.randomize(rng.choice(3, size=3000, p=[0.5, 0.3, 0.2]), rng)
    weighted = weighted_fractions(mechanism, reports, Raked.unweighted(3000))
    plain = mechanism.estimate(mechanism.counts(reports), 3000)
    assert np.allclose(weighted.estimate, plain.estimate, rtol=0, atol=1e-12)
    # the linearization variance is the sample variance over n: the binomial one times n / (n - 1)
    assert np.allclose(np.array(weighted.std_error) ** 2, np.array(plain.std_error) ** 2 * 3000 / 2999, rtol=1e-12)
    assert weighted.effective_n == 3000 and np.allclose(weighted.design_effect, 3000 / 2999)


def test_it_agrees_with_r_survey_rake_and_calibrate(tmp_path):
    rng = np.random.default_rng(4)
    sex, region, truth = draw(rng, 3000)
    mechanism = ldp.QRandomizedResponse("0.5")
    y = mechanism.randomize(truth, rng)
    with (tmp_path / "data.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["y", "sex", "region"], *zip(y.tolist(), sex, region, strict=True)])
    with (tmp_path / "margins.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["column", "value", "share"],
                                    *[[c, v, s] for c in MARGINS for v, s in MARGINS[c].items()]])
    done = subprocess.run([rscript(), "--vanilla", str(SCRIPT), *(str(tmp_path / f) for f in (
        "data.csv", "margins.csv", "out.csv", "weights.csv"))], capture_output=True, text=True, timeout=300,
        check=False)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "out.csv").open() as file:
        r = {row["method"]: (float(row["mean"]), float(row["se"])) for row in csv.DictReader(file)}
    with (tmp_path / "weights.csv").open() as file:
        r_weights = np.array([float(row["w"]) for row in csv.DictReader(file)])
    design = rake(margins_of(sex, region), cap=None)
    assert np.abs(design.weights - r_weights).max() < 1e-8
    found = weighted_fractions(mechanism, y, design)
    gap = mechanism.p - mechanism.q_other
    rate, se = found.estimate[1] * gap + mechanism.q_other, found.std_error[1] * gap  # back to the report rate
    assert abs(rate - r["calibrate"][0]) < 1e-9 and abs(rate - r["rake"][0]) < 1e-9
    assert abs(se - r["calibrate"][1]) < 1e-9
    assert abs(se - r["rake"][1]) < 1e-3 * se  # rake()'s own approximation: close, not equal


def test_the_raked_estimate_recovers_the_population_fraction_the_unweighted_one_misses():
    rng = np.random.default_rng(5)
    truth = float(POPULATION @ YES)
    reps, n = 300, 2000
    hits = {"raked": 0, "unweighted": 0}
    errors = []
    for mechanism in (ldp.QRandomizedResponse("0.6"), ldp.BitFlip(2.0), ldp.KaryRR(1.5, 3)):
        for _ in range(reps // 3):
            sex, region, answer = draw(rng, n)
            if mechanism.k == 3:  # "yes" is option 2; the two others share the rest
                answer = np.where(answer == 1, 2, rng.integers(0, 2, size=n))
            yes = mechanism.k - 1
            reports = mechanism.randomize(answer, rng)
            raked = weighted_fractions(mechanism, reports, rake(margins_of(sex, region)))
            plain = mechanism.estimate(mechanism.counts(reports), n)
            hits["raked"] += raked.ci_low[yes] <= truth <= raked.ci_high[yes]
            hits["unweighted"] += plain.ci_low[yes] <= truth <= plain.ci_high[yes]
            errors.append((raked.estimate[yes] - truth) / raked.std_error[yes])
    assert hits["raked"] / reps >= 0.93
    assert hits["unweighted"] / reps < 0.5  # the selective sample's fraction is not the population's
    assert abs(np.mean(errors)) < 4 / np.sqrt(reps)  # unbiased: mean z within 4 standard errors of 0
    assert 0.85 < np.std(errors) < 1.15  # the linearization SE is the spread of the estimates


def test_a_weighted_mean_uses_the_same_variance():
    values = np.array([1.0, 2.0, 4.0, 8.0])
    design = Raked.fixed([1.0, 2.0, 1.0, 2.0])
    found = weighted_mean(values, design, 0.0, 10.0)
    mean = (values * design.weights).sum() / design.weights.sum()
    expected = 4 / 3 * ((design.weights * (values - mean)) ** 2).sum() / design.weights.sum() ** 2
    assert found.mean == pytest.approx(mean) and found.std_error == pytest.approx(np.sqrt(expected))


def test_a_coded_margin_is_the_margin_of_its_categories_names():
    rng = np.random.default_rng(4)
    shares = {"18-34": 0.3, "35-54": 0.4, "55+": 0.3}
    codes = rng.integers(0, 3, 500)
    by_name = margin("age", np.asarray(list(shares))[codes], shares)
    coded = coded_margin("age", codes, shares)
    assert (coded.name, coded.labels, coded.shares.tolist(), coded.codes.tolist()) == (
        by_name.name, by_name.labels, by_name.shares.tolist(), by_name.codes.tolist())
    with pytest.raises(RakingError, match=r"^age: no respondents in the categories \['55\+'\], which have"):
        coded_margin("age", codes[codes < 2], shares)
    with pytest.raises(RakingError, match="a code outside 0 to 2"):
        coded_margin("age", [0, 3], shares)


def test_a_share_the_raking_fixes_has_no_variance_and_its_interval_is_the_share_alone():
    """The region asked directly and raked to: its weighted shares are the margins', its residuals 0 but for
    rounding, which comes out exactly 0 in some samples and about 1e-33 in others; either way the same answer."""
    rng = np.random.default_rng(6)
    index = {name: j for j, name in enumerate(MARGINS["region"])}
    for _ in range(20):
        sex, region, _ = draw(rng, 500)
        found = weighted_fractions(ldp.Direct(3), [index[r] for r in region], rake(margins_of(sex, region)))
        assert found.estimate == pytest.approx(list(MARGINS["region"].values()), abs=1e-8)  # raking's tolerance
        assert found.std_error == found.design_effect == (0.0, 0.0, 0.0)
        assert found.ci_low == found.estimate == found.ci_high

"""ldp.regression.logistic against an independent fit of the same likelihood in base R (tests/ldp/r/rr_logistic.R:
optim's BFGS, the observed information written out in R and by optimHess's finite differences, the
outer product of scores), on surveys of 20,000 respondents with five covariates (continuous and binary).
The bar is 1e-6 in coefficients and in both kinds of standard error; they agree to about 1e-7 (the
coefficients, limited by BFGS) and 1e-9 (the standard errors). About 10 s, most of it R's optim.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.regression import logistic

SCRIPT = Path(__file__).resolve().parents[1] / "r" / "rr_logistic.R"
TOLERANCE = 1e-6
TERMS = ["(Intercept)", "income", "score", "noise", "renter", "age10"]


def rscript() -> str:
    found = shutil.which("Rscript")
    assert found, "Rscript not found: `make system-deps` installs Debian's r-base-core"
    return found


def survey(rng: np.random.Generator, n: int) -> np.ndarray:
    """An intercept, three normal covariates, a binary one (30%) and an age in decades."""
    return np.column_stack([np.ones(n), rng.normal(size=(n, 3)), rng.random(n) < 0.3, rng.uniform(1.8, 8.0, n)])


def r_fit(tmp_path: Path, y: np.ndarray, x: np.ndarray, p: float, q: float) -> list[dict]:
    data, out = tmp_path / "data.csv", tmp_path / "out.csv"
    with data.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["y", *TERMS[1:]])
        writer.writerows([int(yi), *(repr(float(v)) for v in row[1:])] for yi, row in zip(y, x, strict=True))
    done = subprocess.run([rscript(), "--vanilla", str(SCRIPT), str(data), repr(p), repr(q), str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    with out.open(newline="") as file:
        return list(csv.DictReader(file))


@pytest.mark.parametrize("mechanism, level", [(ldp.BitFlip(1.5), 1), (ldp.KaryRR(2.0, 4), 2)],
                         ids=["bitflip-yes", "krr-option-2"])
def test_it_agrees_with_an_independent_fit_in_r(tmp_path, mechanism, level):
    rng = np.random.default_rng(20261125)
    n = 20_000
    x = survey(rng, n)
    beta = np.array([-1.0, 0.5, -0.3, 0.2, 0.7, 0.1])
    truth = rng.random(n) < 1.0 / (1.0 + np.exp(-x @ beta))
    if mechanism.k == 2:
        answers = truth.astype(np.int64)
    else:  # option `level` when true, otherwise one of the others at random
        others = rng.choice([j for j in range(mechanism.k) if j != level], size=n)
        answers = np.where(truth, level, others)
    y = (mechanism.randomize(answers, rng) == level).astype(float)
    observed = logistic.fit(y, x, mechanism.p, mechanism.q_other, terms=TERMS)
    opg = logistic.fit(y, x, mechanism.p, mechanism.q_other, terms=TERMS, se="opg")
    r = r_fit(tmp_path, y, x, mechanism.p, mechanism.q_other)
    assert [row["term"] for row in r] == TERMS
    assert observed.converged and observed.se == "observed" and opg.se == "opg"
    assert np.abs(np.array([float(row["estimate"]) for row in r]) - observed.estimate).max() < TOLERANCE
    assert np.abs(np.array([float(row["se_observed"]) for row in r]) - observed.std_error).max() < TOLERANCE
    assert np.abs(np.array([float(row["se_numeric"]) for row in r]) - observed.std_error).max() < TOLERANCE
    assert np.abs(np.array([float(row["se_opg"]) for row in r]) - opg.std_error).max() < TOLERANCE
    assert abs(float(r[0]["loglik"]) - observed.log_likelihood) < TOLERANCE
    # Each term's p-value is R's 2 * pnorm(-abs(z)) with either standard error (some are below 1e-10: relative)
    for fitted, column in ((observed, "p_observed"), (opg, "p_opg")):
        assert fitted.p_values == pytest.approx([float(row[column]) for row in r], rel=1e-5, abs=1e-9)
        assert list(fitted.z) == pytest.approx(list(np.array(fitted.estimate) / fitted.std_error), rel=1e-12)
    assert observed.estimate == opg.estimate and observed.std_error != opg.std_error

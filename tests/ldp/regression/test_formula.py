"""Models written as formulas (ldp.regression.formula, `python -m ldp regress --formula`): the same model written with
--covariates gives identical numbers; a formula with powers, a category against a chosen reference and an
interaction agrees with base R's model.matrix of the same model fitted by optim (tests/ldp/r/rr_logistic.R) to
1e-6, p-values included; anything beyond the safe set is refused naming --formula."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.regression import formula, logistic
from tests.ldp.cli.test_main import run
from tests.ldp.regression.test_logistic_r import SCRIPT, TOLERANCE, rscript

N = 4000


@pytest.fixture(scope="module")
def panel(tmp_path_factory) -> Path:
    """A q-RR (q = 0.6) report of a planted model in age, region (three) and sex, with an interaction."""
    rng = np.random.default_rng(20261202)
    age = np.round(rng.uniform(18, 80, N), 2)
    region = rng.choice(["north", "south", "east"], N)
    female = (rng.random(N) < 0.5).astype(int)
    eta = -1 + 0.03 * (age - 45) + 0.6 * (region == "south") - 0.5 * female + 0.02 * female * (age - 45)
    truth = (rng.random(N) < 1 / (1 + np.exp(-eta))).astype(np.int64)
    y = ldp.QRandomizedResponse("0.6").randomize(truth, rng)
    path = tmp_path_factory.mktemp("formula") / "panel.csv"
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["y", "age", "region", "female"])
        writer.writerows(zip(y, [f"{a:.2f}" for a in age], region, female, strict=True))
    return path


def regress(path: Path, *arguments: str) -> dict:
    result = run("regress", "--csv", str(path), "--mechanism", "qrr", "--q", "0.6", *arguments)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_formula_and_the_same_covariates_give_identical_numbers(panel):
    written = regress(panel, "--formula", "y ~ age + female")
    listed = regress(panel, "--outcome", "y", "--covariates", "age,female")
    assert written == listed


@pytest.mark.slow
@pytest.mark.parametrize("se", ["observed", "opg"])
def test_a_formula_model_agrees_with_r(panel, tmp_path, se):
    ours = regress(panel, "--formula", "y ~ age + I((age/10)^2) + C(region, Treatment('north')) + female + age:female",
                   "--se", se)
    assert ours["terms"] == ["(Intercept)", "age", "I((age / 10) ** 2)", "C(region, Treatment('north'))[T.east]",
                             "C(region, Treatment('north'))[T.south]", "female", "age:female"]
    out = tmp_path / "r.csv"
    mechanism = ldp.QRandomizedResponse("0.6")
    r_formula = "y ~ age + I((age/10)^2) + relevel(factor(region), 'north') + female + age:female"
    done = subprocess.run([rscript(), "--vanilla", str(SCRIPT), str(panel), repr(mechanism.p),
                           repr(mechanism.q_other), str(out), r_formula],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    with out.open(newline="") as file:
        r = list(csv.DictReader(file))
    assert np.abs(np.array([float(row["estimate"]) for row in r]) - ours["estimate"]).max() < TOLERANCE
    assert np.abs(np.array([float(row[f"se_{se}"]) for row in r]) - ours["std_error"]).max() < TOLERANCE
    assert ours["p_value"] == pytest.approx([float(row[f"p_{se}"]) for row in r], rel=1e-5, abs=1e-9)


def test_a_category_against_a_chosen_reference_is_its_indicators():
    data = {"g": formula.Categorical(np.array([0, 1, 2, 1, 0, 2]), ("a", "b", "c")), "t": np.arange(6.0)}
    x, names = formula.design(formula.parse("y ~ C(g, Treatment('b')) + t + I(t^2)"), data)
    assert names == ["(Intercept)", "C(g, Treatment('b'))[T.a]", "C(g, Treatment('b'))[T.c]", "t", "I(t ** 2)"]
    codes = data["g"].codes
    assert x.tolist() == np.column_stack([np.ones(6), codes == 0, codes == 2, np.arange(6.0),
                                          np.arange(6.0) ** 2]).tolist()


@pytest.mark.parametrize("text", [
    "y ~ __import__('os').system('true')", "y ~ open('x')", "y ~ age.real", "y ~ poly(age, 2)", "y ~ age - 1",
    "y ~ C(region, Treatment('west'))", "y ~ I(region * 2)", "y ~ age +", "age + female", "y ~ y + age",
    "y ~ C(region, Sum)", "y ~ {age.__class__}", "y ~ nothing", "y ~ I('a')", "y ~ age[0]", "y ~ (lambda: 1)()",
])
def test_anything_beyond_the_safe_set_is_refused_naming_formula(panel, text):
    result = run("regress", "--csv", str(panel), "--mechanism", "qrr", "--q", "0.6", "--formula", text)
    assert result.returncode == 2 and "argument --formula:" in result.stderr, result.stderr


def test_formula_and_covariates_together_are_refused(panel):
    result = run("regress", "--csv", str(panel), "--mechanism", "qrr", "--q", "0.6", "--formula", "y ~ age",
                 "--covariates", "age")
    assert result.returncode == 2 and "argument --formula:" in result.stderr


def test_the_library_fit_of_a_formula_is_the_stacked_columns_fit():
    rng = np.random.default_rng(4)
    t = rng.normal(size=500)
    y = (rng.random(500) < 0.5).astype(float)
    x, names = formula.design(formula.parse("y ~ t + I(t**2)"), {"t": t})
    stacked = np.column_stack([np.ones(500), t, t**2])
    assert names == ["(Intercept)", "t", "I(t ** 2)"] and np.array_equal(x, stacked)
    assert logistic.fit(y, x, 0.8, 0.2).estimate == logistic.fit(y, stacked, 0.8, 0.2).estimate


@pytest.mark.parametrize(("text", "reason"), [
    ("y ~ (a + b + c + d + e + f + g)^7", "^7 between terms: at most ^3"),  # 127 terms: 38 s to expand
    ("y ~ (a + b)^x", "^x between terms: at most ^3"),
    ("y ~ a*b*c*d*e*f*g", "more than 5 * between terms"),
    ("y ~ I(x * 1" + "0" * 400 + ")", "is not a finite number"),
    ("y ~ C(a, Treatment(None))", "C()'s second argument is Treatment(level)"),
    ("y ~ C(a, Treatment(1j))", "C()'s second argument is Treatment(level)"),
    ("y ~ C(a, Treatment(True))", "C()'s second argument is Treatment(level)"),
    ("y ~ a | b", "write one right side of terms (no |)"),
])
def test_a_formula_beyond_its_bounds_or_of_odd_constants_is_refused_in_words(text, reason):
    with pytest.raises(formula.FormulaError) as refused:
        formula.parse(text)
    assert reason in str(refused.value)


def test_formulas_at_the_bounds_are_read():
    assert len(formula.parse("y ~ (a + b + c)^3 + I((age/10)^9)").terms) == 8
    assert len(formula.parse("y ~ a*b*c*d*e*f").terms) == 63


def test_a_category_of_too_many_levels_or_too_many_columns_is_refused():
    rows = 120
    data = {"y": np.zeros(rows), "x": np.arange(rows, dtype=float) % 51, "a": np.arange(rows, dtype=float) % 50,
            "b": np.arange(rows, dtype=float) % 6}
    with pytest.raises(formula.FormulaError, match="has 51 levels: at most 50"):
        formula.design(formula.parse("y ~ C(x)"), data)
    assert formula.design(formula.parse("y ~ C(a)"), data)[0].shape == (rows, 50)
    with pytest.raises(formula.FormulaError, match="about 246 columns: at most 200"):
        formula.design(formula.parse("y ~ C(a):C(b)"), data)

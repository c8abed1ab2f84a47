"""`python -m ldp regress` and `python -m ldp estimate`, run from the repository root (test_main's `run`): the
printed JSON is the library's result on the rows kept, rows with a missing cell are dropped and counted,
unary encodings read their bit columns, and bad arguments exit 2 naming the argument."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.regression import logistic
from ldp.weighting.estimates import weighted_fractions
from ldp.weighting.raking import Raked, margin, rake
from tests.ldp.cli.test_main import run

REGRESS_KEYS = ["terms", "estimate", "std_error", "z", "p_value", "ci_low", "ci_high", "n", "dropped",
                "log_likelihood"]
ESTIMATE_KEYS = ["estimate", "std_error", "ci_low", "ci_high", "n", "effective_n"]
N = 1500


def output(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def panel(tmp_path_factory) -> tuple[Path, dict]:
    """A CSV of N respondents: a q-RR yes/no report, a k-RR report (k = 3), an OUE report's bits, two numeric
    covariates, two direct questions to rake on and a weight; a few cells empty or NA."""
    rng = np.random.default_rng(7)
    age = rng.uniform(18, 80, N)
    income = rng.normal(size=N)
    sex = rng.choice(["f", "m"], size=N, p=[0.65, 0.35])
    region = rng.choice(["north", "south"], size=N, p=[0.3, 0.7])
    truth = (rng.random(N) < 1 / (1 + np.exp(-(-1 + 0.03 * (age - 45) + 0.5 * income)))).astype(np.int64)
    qrr, krr, oue = ldp.QRandomizedResponse("0.6"), ldp.KaryRR(1.5, 3), ldp.OptimizedUnary(1.5, 3)
    choice = rng.choice(3, size=N, p=[0.2, 0.3, 0.5])
    columns = {
        "smoker": qrr.randomize(truth, rng).astype(str), "party": krr.randomize(choice, rng).astype(str),
        **{f"fruit_{j}": bits.astype(str) for j, bits in enumerate(oue.randomize(choice, rng).T)},
        "age": np.char.mod("%.2f", age), "income": np.char.mod("%.4f", income), "sex": sex, "region": region,
        "w": np.char.mod("%.3f", rng.uniform(0.5, 2.0, N)),
    }
    columns = {name: np.asarray(values).astype(object) for name, values in columns.items()}  # room for "NA"
    columns["age"][[3, 40]] = ["NA", ""]
    columns["smoker"][77] = ""
    columns["sex"][5] = "NA"
    path = tmp_path_factory.mktemp("regress") / "panel.csv"
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(list(columns))
        writer.writerows(zip(*columns.values(), strict=True))
    return path, columns


def kept(columns: dict, names: list[str]) -> np.ndarray:
    return np.all([~np.isin(columns[name], ["", "NA"]) for name in names], axis=0)


def test_regress_prints_the_library_fit_on_the_rows_it_keeps(panel):
    path, columns = panel
    out = output(run("regress", "--csv", str(path), "--outcome", "smoker", "--mechanism", "qrr", "--q", "0.6",
                     "--covariates", "age,income", "--confidence", "0.9"))
    assert list(out) == REGRESS_KEYS
    rows = kept(columns, ["smoker", "age", "income"])
    x = np.column_stack([np.ones(rows.sum()), columns["age"][rows].astype(float),
                         columns["income"][rows].astype(float)])
    mechanism = ldp.QRandomizedResponse("0.6")
    fit = logistic.fit(columns["smoker"][rows].astype(float), x, mechanism.p, mechanism.q_other,
                       terms=["(Intercept)", "age", "income"], confidence=0.9)
    assert out == {"terms": ["(Intercept)", "age", "income"], "estimate": list(fit.estimate),
                   "std_error": list(fit.std_error), "z": list(fit.z), "p_value": list(fit.p_values),
                   "ci_low": list(fit.ci_low), "ci_high": list(fit.ci_high), "n": int(rows.sum()), "dropped": 3,
                   "log_likelihood": fit.log_likelihood}


def test_regress_takes_opg_standard_errors_the_intercept_alone_and_one_option_of_k(panel):
    path, columns = panel
    base = ["regress", "--csv", str(path), "--mechanism"]
    observed = output(run(*base, "qrr", "--q", "0.6", "--outcome", "smoker", "--covariates", "age"))
    opg = output(run(*base, "qrr", "--q", "0.6", "--outcome", "smoker", "--covariates", "age", "--se", "opg"))
    assert opg["estimate"] == observed["estimate"] and opg["std_error"] != observed["std_error"]
    alone = output(run(*base, "krr", "--k", "3", "--epsilon", "1.5", "--outcome", "party", "--level", "2"))
    mechanism = ldp.KaryRR(1.5, 3)
    y = (columns["party"].astype(int) == 2).astype(float)
    fit = logistic.fit(y, np.ones((N, 1)), mechanism.p, mechanism.q_other)
    assert alone["terms"] == ["(Intercept)"] and alone["estimate"] == list(fit.estimate) and alone["dropped"] == 0


def test_regress_reads_a_unary_report_s_bit_of_the_modelled_option(panel):
    path, columns = panel
    out = output(run("regress", "--csv", str(path), "--outcome", "fruit", "--mechanism", "oue", "--k", "3",
                     "--epsilon", "1.5", "--level", "1", "--covariates", "income"))
    mechanism = ldp.OptimizedUnary(1.5, 3)
    x = np.column_stack([np.ones(N), columns["income"].astype(float)])
    fit = logistic.fit(columns["fruit_1"].astype(float), x, mechanism.p, mechanism.q_other)
    assert out["estimate"] == list(fit.estimate) and out["std_error"] == list(fit.std_error)


def test_regress_with_raking_fits_the_weighted_pseudo_likelihood(panel):
    path, columns = panel
    out = output(run("regress", "--csv", str(path), "--outcome", "smoker", "--mechanism", "qrr", "--q", "0.6",
                     "--covariates", "income", "--rake", "sex:f=0.5,m=0.5;region:north=0.4,south=0.6"))
    rows = kept(columns, ["smoker", "income", "sex", "region"])
    design = rake([margin("sex", columns["sex"][rows], {"f": 0.5, "m": 0.5}),
                   margin("region", columns["region"][rows], {"north": 0.4, "south": 0.6})])
    x = np.column_stack([np.ones(rows.sum()), columns["income"][rows].astype(float)])
    mechanism = ldp.QRandomizedResponse("0.6")
    fit = logistic.fit(columns["smoker"][rows].astype(float), x, mechanism.p, mechanism.q_other, design=design)
    assert out["estimate"] == list(fit.estimate) and out["std_error"] == list(fit.std_error)
    assert out["dropped"] == 2 and out["n"] == N - 2


def test_estimate_prints_one_entry_per_option_unweighted_weighted_and_raked(panel):
    path, columns = panel
    mechanism = ldp.KaryRR(1.5, 3)
    base = ["estimate", "--csv", str(path), "--outcome", "party", "--mechanism", "krr", "--k", "3", "--epsilon", "1.5"]
    plain = output(run(*base))
    reports = columns["party"].astype(int)
    found = mechanism.estimate(mechanism.counts(reports), N)
    assert plain == {"estimate": list(found.estimate), "std_error": list(found.std_error),
                     "ci_low": list(found.ci_low), "ci_high": list(found.ci_high), "n": N, "effective_n": float(N)}
    weighted = output(run(*base, "--weights", "w"))
    by_library = weighted_fractions(mechanism, reports, Raked.fixed(columns["w"].astype(float)))
    assert list(weighted) == ESTIMATE_KEYS
    assert weighted == {key: getattr(by_library, key) if key in ("n", "effective_n") else list(getattr(by_library, key))
                        for key in ESTIMATE_KEYS}
    raked = output(run(*base, "--rake", "sex:f=0.5,m=0.5", "--cap", "none"))
    rows = kept(columns, ["sex"])
    design = rake([margin("sex", columns["sex"][rows], {"f": 0.5, "m": 0.5})], cap=None)
    assert raked["estimate"] == list(weighted_fractions(mechanism, reports[rows], design).estimate)
    assert raked["n"] == N - 1 and raked["effective_n"] < N - 1


def test_estimate_of_a_yes_no_question_gives_no_then_yes_and_of_a_unary_one_reads_its_bits(panel):
    path, columns = panel
    yes_no = output(run("estimate", "--csv", str(path), "--outcome", "smoker", "--mechanism", "qrr", "--q", "0.6"))
    reports = columns["smoker"][kept(columns, ["smoker"])].astype(int)
    mechanism = ldp.QRandomizedResponse("0.6")
    assert yes_no["estimate"] == list(mechanism.estimate(mechanism.counts(reports), reports.size).estimate)
    assert len(yes_no["estimate"]) == 2 and yes_no["n"] == N - 1
    unary = output(run("estimate", "--csv", str(path), "--outcome", "fruit", "--mechanism", "oue", "--k", "3",
                       "--epsilon", "1.5"))
    oue = ldp.OptimizedUnary(1.5, 3)
    bits = np.column_stack([columns[f"fruit_{j}"].astype(int) for j in range(3)])
    assert unary["estimate"] == list(oue.estimate(bits.sum(axis=0), N).estimate)


@pytest.mark.parametrize("args, argument", [
    (["--outcome", "nope"], "--outcome"),
    (["--outcome", "party"], "--outcome"),  # reports 0..2 are not yes/no
    (["--covariates", "sex"], "--covariates"),
    (["--covariates", "age,age"], "--covariates"),
    (["--rake", "sex:f=0.5,m=0.6"], "--rake"),
    (["--rake", "sex:f=0.5"], "--rake"),  # m has no share
    (["--rake", "sex"], "--rake"),
    (["--weights", "sex"], "--weights"),
    (["--cap", "3"], "--cap"),
    (["--rake", "sex:f=0.5,m=0.5", "--cap", "1"], "--cap"),
    (["--weights", "w", "--se", "opg"], "--se"),
    (["--level", "2"], "--level"),
    (["--confidence", "1.5"], "--confidence"),
])
def test_regress_exits_2_naming_a_bad_argument(panel, args, argument):
    path, _ = panel
    base = {"--outcome": "smoker"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    result = run("regress", "--csv", str(path), "--mechanism", "qrr", "--q", "0.6",
                 *[item for pair in base.items() for item in pair])
    assert result.returncode == 2 and argument in result.stderr and result.stdout == ""


@pytest.mark.parametrize("args, argument", [
    (["--mechanism", "krr", "--epsilon", "1", "--k", "3"], "--level"),
    (["--mechanism", "onebit", "--epsilon", "1"], "--mechanism"),
    (["--mechanism", "qrr", "--epsilon", "1"], "--epsilon"),
    (["--mechanism", "bitflip", "--q", "0.5"], "--q"),
])
def test_regress_exits_2_on_a_mechanism_it_cannot_model(panel, args, argument):
    path, _ = panel
    result = run("regress", "--csv", str(path), "--outcome", "party", *args)
    assert result.returncode == 2 and argument in result.stderr


def test_a_missing_file_exits_2_naming_csv(tmp_path):
    result = run("estimate", "--csv", str(tmp_path / "none.csv"), "--outcome", "y", "--mechanism", "qrr", "--q", "0.5")
    assert result.returncode == 2 and "--csv" in result.stderr


def test_a_separated_fit_prints_its_numbers_and_says_so(tmp_path):
    path = tmp_path / "separated.csv"
    x = np.linspace(-1, 1, 200)
    path.write_text("y,x\n" + "".join(f"{int(v > 0)},{v}\n" for v in x))
    result = run("regress", "--csv", str(path), "--outcome", "y", "--mechanism", "direct", "--k", "2",
                 "--covariates", "x")
    assert result.returncode == 0 and "separate" in result.stderr
    assert list(json.loads(result.stdout)) == REGRESS_KEYS

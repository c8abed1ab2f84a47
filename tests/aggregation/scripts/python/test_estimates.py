"""The analysis script's estimates (surveys.aggregation.scripts.python.estimates), imported directly on a small
codebook and reports CSV: a row per option in COLUMNS' order, the debiased figures, the mean of a number sent as
given, the too-few rule, the CSV."""

import csv

import numpy as np
import pytest

from surveys.aggregation.scripts.python import debiasing, estimates, header, reading
from tests.aggregation.scripts.python import support


@pytest.fixture(autouse=True)
def literals(monkeypatch):
    """What the generated header holds for this survey: its mechanism version, the number's worst-case variance."""
    monkeypatch.setattr(reading, "MECHANISM_VERSION", support.VERSION)
    monkeypatch.setitem(header.MEAN_VARIANCE, "q3", 25.0)


def rows(n=60, seed=4):
    rng = np.random.default_rng(seed)
    return [[str(rng.integers(0, 2)), str(rng.integers(0, 3)), str(rng.integers(0, 21) / 2)] for _ in range(n)]


def test_analyze_gives_a_row_per_option_and_a_mean_row(tmp_path):
    reports, codebook = support.write(tmp_path, rows())
    found = estimates.analyze(reports, codebook, 0.95, "wilson")
    assert [(r["question_key"], r["option_index"]) for r in found] == [
        ("q1", 0), ("q1", 1), ("q2", 0), ("q2", 1), ("q2", 2), ("q3", "mean")]
    assert all(list(r) == estimates.COLUMNS for r in found)


def test_analyze_debiases_through_the_exact_channel(tmp_path):
    given = rows()
    reports, codebook = support.write(tmp_path, given)
    found = [r for r in estimates.analyze(reports, codebook, 0.9, "exact") if r["question_key"] == "q2"]
    counts = np.bincount([int(row[1]) for row in given], minlength=3)
    p, q = found[0]["p"], found[0]["q_other"]
    expected = debiasing.debias(counts.tolist(), len(given), p, q, 0.9, "exact", False)
    assert [r["count"] for r in found] == counts.tolist()
    assert [r["estimate"] for r in found] == pytest.approx((counts / len(given) - q) / (p - q))
    assert [r["ci_low"] for r in found] == pytest.approx(expected[2])
    assert [r["ci_high"] for r in found] == pytest.approx(expected[3])


def test_a_number_sent_as_given_is_its_exact_mean(tmp_path):
    given = rows()
    reports, codebook = support.write(tmp_path, given)
    mean = next(r for r in estimates.analyze(reports, codebook) if r["question_key"] == "q3")
    assert mean["estimate"] == pytest.approx(np.mean([float(row[2]) for row in given]))
    assert mean["interval"] == "t"


def test_too_few_respondents_are_flagged_by_the_planners_rule(tmp_path):
    reports, codebook = support.write(tmp_path, rows(n=20))
    found = estimates.analyze(reports, codebook, margin=0.05)
    yes_no = found[0]
    assert yes_no["n"] == 20 and yes_no["respondents_needed"] > 20 and yes_no["too_few"]


def test_the_csv_has_the_columns_and_the_booleans_in_lower_case(tmp_path):
    reports, codebook = support.write(tmp_path, rows())
    estimates.write_csv(estimates.analyze(reports, codebook), str(tmp_path / "out.csv"))
    with (tmp_path / "out.csv").open(newline="") as file:
        read = list(csv.DictReader(file))
    assert list(read[0]) == estimates.COLUMNS and read[0]["randomized"] == "true"


def test_number_takes_nan_and_none_to_none():
    assert estimates.number(float("nan")) is None and estimates.number(None) is None
    assert estimates.number(np.float64(0.25)) == 0.25

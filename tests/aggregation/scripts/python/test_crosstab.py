"""The analysis script's cross-tab (surveys.aggregation.scripts.python.crosstab), imported directly on a small
codebook and reports CSV: the joint fractions are the means of the score products, the conditional fractions their
ratios, the CSV has crosstab.csv's columns, a mean is refused."""

import csv
from fractions import Fraction

import numpy as np
import pytest

from surveys.aggregation.scripts.python import crosstab, reading, relation
from surveys.aggregation.scripts.python.crosstab_cells import CROSSTAB_COLUMNS
from tests.aggregation.scripts.python import support


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "MECHANISM_VERSION", support.VERSION)
    rng = np.random.default_rng(6)
    rows = [[str(rng.integers(0, 2)), str(rng.integers(0, 3)), "1"] for _ in range(500)]
    return support.write(tmp_path, rows), rows


def scores(reports, channel, k):
    p, q = (float(Fraction(channel[name])) for name in ("p_exact", "q_other_exact"))
    return ((np.array(reports)[:, None] == np.arange(k)) - q) / (p - q)


def test_the_joint_fractions_are_the_means_of_the_score_products(files):
    (reports, codebook), rows = files
    found = crosstab.crosstab(reports, codebook, "q1", "q2", 0.9)
    book = support.book()
    sa = scores([int(r[0]) for r in rows], book["questions"][0]["mechanism"], 2)
    sb = scores([int(r[1]) for r in rows], book["questions"][1]["mechanism"], 3)
    joint = (sa[:, :, None] * sb[:, None, :]).mean(axis=0)
    assert found["n"] == 500
    assert found["joint"]["estimate"] == pytest.approx(joint)
    assert found["joint"]["estimate"].sum() == pytest.approx(1.0)
    assert found["b_given_a"]["estimate"] == pytest.approx(joint / sa.mean(axis=0)[:, None])
    assert found["a_given_b"]["estimate"] == pytest.approx((joint / sb.mean(axis=0)[None, :]).T)
    assert np.all(found["joint"]["ci_low"] <= np.clip(joint, 0, 1))
    assert np.all(np.clip(joint, 0, 1) <= found["joint"]["ci_high"])


def test_the_csv_has_crosstab_csvs_columns_and_a_row_per_cell(files, tmp_path):
    (reports, codebook), _ = files
    crosstab.write_crosstab_csv(crosstab.crosstab(reports, codebook, "q1", "q2"), str(tmp_path / "x.csv"))
    with (tmp_path / "x.csv").open(newline="") as file:
        read = list(csv.DictReader(file))
    assert list(read[0]) == CROSSTAB_COLUMNS + relation.TEST_COLUMNS and len(read) == 6
    assert [(r["a_index"], r["b_index"]) for r in read[:3]] == [("0", "0"), ("0", "1"), ("0", "2")]


def test_a_question_asked_for_its_mean_or_the_same_question_twice_is_refused(files):
    (reports, codebook), _ = files
    with pytest.raises(ValueError, match="q3 is asked for its mean"):
        crosstab.crosstab(reports, codebook, "q1", "q3")
    with pytest.raises(ValueError, match="two different questions"):
        crosstab.crosstab(reports, codebook, "q1", "q1")

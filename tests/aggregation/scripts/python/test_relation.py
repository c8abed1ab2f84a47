"""The cross-tab's test of relation in the analysis script (surveys.aggregation.scripts.python.relation), imported
directly: Pearson's X^2 against scipy's, the dashboard's words, Bonferroni over a multi-select's tables."""

import numpy as np
import pytest
from scipy import stats

from surveys.aggregation.scripts.python import relation


def test_pearson_is_scipys_chi_square_without_continuity_correction():
    table = np.array([[30, 10, 5], [20, 25, 10]])
    statistic, _, df, _ = stats.chi2_contingency(table, correction=False)
    assert relation.pearson(table) == pytest.approx((statistic, df))


def test_pearson_leaves_out_empty_rows_and_columns():
    table = np.array([[30, 0, 5], [0, 0, 0], [20, 0, 10]])
    statistic, _, df, _ = stats.chi2_contingency(np.array([[30, 5], [20, 10]]), correction=False)
    assert relation.pearson(table) == pytest.approx((statistic, df))


def test_p_text_as_the_dashboard_writes_it():
    assert relation.p_text(0.01230) == "p = 0.0123"
    assert relation.p_text(0.5) == "p = 0.5"
    assert relation.p_text(0.00001) == "p < 0.0001"


def test_a_multi_select_is_tested_bit_by_bit_with_bonferroni():
    rng = np.random.default_rng(8)
    xa = (rng.random((300, 2)) < 0.5).astype(float)  # two bits, unrelated to B
    xb = np.eye(2)[rng.integers(0, 2, 300)]
    direct = {"p_exact": "1/1", "q_other_exact": "0/1"}
    a = {"report": {"encoding": "bits"}, "mechanism": direct, "options": ["x", "y"]}
    b = {"report": {"encoding": "index"}, "mechanism": direct, "options": ["u", "v"]}
    found = {"a": a, "b": b, "n": 300, "pairs": (xa.T @ xb).astype(int), "a_counts": xa.sum(axis=0).astype(int),
             "b_counts": xb.sum(axis=0).astype(int)}
    test = relation.independence(found, xa, xb, None)
    smallest = min(stats.chi2_contingency(np.stack([found["pairs"][i], found["b_counts"] - found["pairs"][i]]),
                                          correction=False)[1] for i in range(2))
    assert test["tables"] == 2
    assert test["p_value"] == pytest.approx(min(1.0, 2 * smallest))
    assert test["related"] is (test["p_value"] < relation.ALPHA)

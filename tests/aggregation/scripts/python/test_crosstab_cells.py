"""The cross-tab's cells in the analysis script (surveys.aggregation.scripts.python.crosstab_cells), imported
directly: the indicators of options and bins, Fieller's ratio, the joint cells' score interval, the planner."""

import math

import numpy as np
import pytest
from scipy import stats

from surveys.aggregation.scripts.python import crosstab_cells
from surveys.aggregation.scripts.python.intervals import wilson


def test_indicators_of_an_index_report_and_of_a_numbers_bins():
    choice = {"options": ["a", "b", "c"], "report": {"encoding": "index", "csv_columns": ["q1"]}, "mechanism": {}}
    assert crosstab_cells.indicators(choice, {"q1": ["2", "0"]}, np.array([0, 1])).tolist() == [[0, 0, 1], [1, 0, 0]]
    number = {"options": ["low", "high"], "report": {"encoding": "integer", "csv_columns": ["q2"]},
              "mechanism": {"steps": 10}, "bins": [{"lower_index": 0}, {"lower_index": 5}]}
    assert crosstab_cells.indicators(number, {"q2": ["4", "5", "10"]}, np.array([0, 1, 2])).tolist() == [
        [1, 0], [0, 1], [0, 1]]


def test_a_number_asked_directly_relates_through_the_identity_channel():
    assert crosstab_cells.exact_channel({"mechanism": {"steps": 10}}) == (1.0, 0.0)
    assert crosstab_cells.exact_channel({"mechanism": {"p_exact": "3/4", "q_other_exact": "1/4"}}) == (0.75, 0.25)


def test_fieller_ratio_is_the_ratio_with_its_delta_method_error_and_an_interval_around_it():
    num, den = np.array([[0.12]]), np.array([[0.4]])
    v_num, v_den, cov = np.array([[1e-4]]), np.array([[4e-4]]), np.array([[5e-5]])
    ratio, se, low, high, bounded = crosstab_cells.fieller_ratio(num, den, v_num, v_den, cov, 1.96)
    assert ratio[0, 0] == pytest.approx(0.3)
    assert se[0, 0] == pytest.approx(math.sqrt(1e-4 - 2 * 0.3 * 5e-5 + 0.09 * 4e-4) / 0.4)
    # Fieller's ends: the R where (num - R den)^2 = z^2 (v_num - 2 R cov + R^2 v_den)
    for end in (low[0, 0], high[0, 0]):
        assert (0.12 - end * 0.4) ** 2 == pytest.approx(1.96 ** 2 * (1e-4 - 2 * end * 5e-5 + end ** 2 * 4e-4))
    assert low[0, 0] < 0.3 < high[0, 0] and bounded[0]


def test_fieller_ratio_is_unbounded_where_the_denominators_interval_reaches_zero():
    *_, low, high, bounded = crosstab_cells.fieller_ratio(np.array([[0.01]]), np.array([[0.02]]), np.array([[1e-4]]),
                                                         np.array([[4e-4]]), np.array([[0.0]]), 1.96)
    assert (low[0, 0], high[0, 0], bounded[0]) == (0.0, 1.0, False)


def test_the_joint_score_interval_of_direct_answers_is_wilsons():
    """Direct answers (p = 1, q = 0): c1 = 1 and c0 = mean((s_a s_b)^2) - pi = 0, Wilson's equation."""
    pi, n, z = np.array([[0.3]]), np.array([[100.0]]), stats.norm.ppf(0.975)
    low, high = crosstab_cells.score_ends(pi, pi * (1 - pi), np.zeros((1, 1)), 1.0, n, 1.0, z)
    assert (low[0, 0], high[0, 0]) == pytest.approx(wilson(30, 100, 0.95), abs=1e-12)


def test_joint_needed_grows_with_the_randomization():
    direct = crosstab_cells.joint_needed((1.0, 0.0), (1.0, 0.0), 0.05, 0.95)
    assert direct == math.ceil(stats.norm.ppf(0.975) ** 2 * 0.25 / 0.05 ** 2)
    assert crosstab_cells.joint_needed((0.75, 0.25), (1.0, 0.0), 0.05, 0.95) > direct

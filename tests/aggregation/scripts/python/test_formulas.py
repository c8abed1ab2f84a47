"""A model's terms in the analysis script (surveys.aggregation.scripts.python.formulas), imported directly."""

import numpy as np
import pytest

from surveys.aggregation.scripts.python import formulas

QUESTIONS = {"q1": {"randomized": True, "kind": "yes_no", "mechanism": {}},
             "q2": {"randomized": False, "kind": "single_choice", "mechanism": {}},
             "q3": {"randomized": False, "kind": "numeric", "mechanism": {"steps": 10}},
             "q4": {"randomized": True, "kind": "numeric", "mechanism": {"steps": 10}},
             "q5": {"randomized": True, "kind": "multi_select", "mechanism": {}}}


def test_the_kinds_of_outcome_and_covariate():
    assert [formulas.outcome_kind(q) for q in QUESTIONS.values()] == ["logistic", None, None, "linear", None]
    assert [formulas.covariate_kind(q) for q in QUESTIONS.values()] == [None, "choice", "number", None, None]


def test_formula_parts_are_the_outcome_and_the_questions_on_the_right():
    assert formulas.formula_parts("q1 ~ q3 * I(q3 / 10) + C(q2, Treatment(1))", QUESTIONS) == ("q1", ["q3", "q2"])
    with pytest.raises(ValueError, match="outcome ~ terms"):
        formulas.formula_parts("q1 + q2", QUESTIONS)


def test_r_powers_turn_a_power_inside_i_into_pythons_and_leave_interactions():
    assert formulas.r_powers("q1 ~ I(q3^2) + (q2 + q3)^2") == "q1 ~ I(q3**2) + (q2 + q3)^2"


def test_scaled_columns_take_the_coefficients_back_to_the_original_ones():
    rng = np.random.default_rng(2)
    x = np.column_stack([np.ones(50), rng.normal(20000, 300, 50), rng.integers(0, 2, 50)])
    b = np.array([1.0, -0.002, 0.5])
    scaled, back = formulas.scaled_columns(x)
    g = np.linalg.lstsq(scaled, x @ b, rcond=None)[0]
    assert back @ g == pytest.approx(b)
    assert scaled[:, 1:].mean(axis=0) == pytest.approx([0, 0], abs=1e-12)


def test_unbiased_values_of_a_onebit_mean_and_of_discrete_laplace():
    scale = {"lo": "0", "hi": "10", "step": "0.5"}
    onebit = {"scale": scale, "mechanism": {"encoding": "bits"}}
    assert formulas.unbiased_values(onebit, np.array([0, 1]), 0.75, 0.25).tolist() == [-5.0, 15.0]
    laplace = {"scale": scale, "mechanism": {"encoding": "integer"}}
    assert formulas.unbiased_values(laplace, np.array([-2, 4]), None, None).tolist() == [-1.0, 2.0]

"""Fitting a model in the analysis script (surveys.aggregation.scripts.python.fitting), imported directly: the
logistic model through the channel recovers the coefficients of simulated reports (to four standard errors) and is
the ordinary logistic fit without randomization; least squares with HC1 errors as their formulas say."""

import numpy as np
import pytest

from surveys.aggregation.scripts.python import fitting


def simulated(n, p, q, seed=1, b=(-0.5, 1.0)):
    rng = np.random.default_rng(seed)
    x = np.column_stack([np.ones(n), rng.normal(size=n)])
    truth = rng.random(n) < 1 / (1 + np.exp(-(x @ np.array(b))))
    report = np.where(rng.random(n) < np.where(truth, p, q), 1.0, 0.0)  # P(1 | true) = p, P(1 | false) = q
    return report, x


def test_the_logistic_model_through_the_channel_recovers_the_coefficients():
    y, x = simulated(20000, 0.8, 0.2)
    found = fitting.logistic_model(y, x, 0.8, 0.2, np.ones(y.size), None, "observed", 0.95)
    for estimate, se, truth in zip(found["estimate"], found["std_error"], (-0.5, 1.0), strict=True):
        assert abs(estimate - truth) < 4 * se
    assert found["test"]["name"] == "likelihood ratio" and found["test"]["p_value"] < 1e-6


def test_without_randomization_it_is_the_ordinary_logistic_fit():
    y, x = simulated(500, 1.0, 0.0, seed=2)
    b = np.zeros(2)
    for _ in range(50):  # Newton's method for the ordinary logistic likelihood
        s = 1 / (1 + np.exp(-(x @ b)))
        b = b + np.linalg.solve((x * (s * (1 - s))[:, None]).T @ x, x.T @ (y - s))
    s = 1 / (1 + np.exp(-(x @ b)))
    found = fitting.logistic_model(y, x, 1.0, 0.0, np.ones(y.size), None, "observed", 0.95)
    assert found["estimate"] == pytest.approx(b, abs=1e-7)
    se = np.sqrt(np.diag(np.linalg.inv((x * (s * (1 - s))[:, None]).T @ x)))
    assert found["std_error"] == pytest.approx(se, rel=1e-5)
    assert found["odds_ratio"] == pytest.approx(np.exp(b), rel=1e-6)


def test_least_squares_with_hc1_standard_errors():
    rng = np.random.default_rng(3)
    x = np.column_stack([np.ones(200), rng.normal(size=200), rng.normal(size=200)])
    v = x @ np.array([2.0, -1.0, 0.5]) + rng.normal(size=200) * (1 + np.abs(x[:, 1]))
    found = fitting.linear_model(v, x, np.ones(200), None, 0.95)
    b = np.linalg.lstsq(x, v, rcond=None)[0]
    e = v - x @ b
    bread = np.linalg.inv(x.T @ x)
    hc1 = bread @ (x * (e ** 2)[:, None]).T @ x @ bread * 200 / (200 - 3)
    assert found["estimate"] == pytest.approx(b)
    assert found["std_error"] == pytest.approx(np.sqrt(np.diag(hc1)), rel=1e-9)


def test_positive_definite():
    assert fitting.positive_definite(np.eye(2)) and not fitting.positive_definite(np.array([[1.0, 2.0], [2.0, 1.0]]))

"""ldp.regression.linear: least squares of a numeric question's unbiased per-report values on covariates, with
HC1 standard errors; unbiased and covering in simulation for the 1-bit mean and discrete Laplace."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.regression import linear as linear_model
from ldp.weighting.raking import Raked


def test_hc1_is_the_textbook_sandwich_with_n_over_n_minus_k():
    rng = np.random.default_rng(1)
    n = 40
    x = np.column_stack([np.ones(n), rng.normal(size=n), rng.random(n) < 0.5])
    v = x @ [1.0, 2.0, -1.0] + rng.normal(size=n) * (1 + x[:, 1] ** 2)
    fit = linear_model.fit(v, x, confidence=0.9)
    b = np.linalg.lstsq(x, v, rcond=None)[0]
    e = v - x @ b
    inverse = np.linalg.inv(x.T @ x)
    meat = sum(np.outer(row, row) * ei**2 for row, ei in zip(x, e, strict=True))
    expected = np.sqrt(np.diag(inverse @ meat @ inverse) * n / (n - 3))
    assert np.allclose(fit.estimate, b, rtol=0, atol=1e-12) and np.allclose(fit.std_error, expected, rtol=1e-12)
    t = stats.t.ppf(0.95, n - 3)
    assert np.allclose(fit.ci_high, b + t * expected, rtol=1e-10) and fit.se == "HC1"


def test_weighted_least_squares_takes_the_sandwich_over_the_design():
    rng = np.random.default_rng(2)
    n = 50
    x = np.column_stack([np.ones(n), rng.normal(size=n)])
    v = x @ [0.5, 1.0] + rng.normal(size=n)
    w = rng.uniform(0.5, 2.0, n)
    fit = linear_model.fit(v, x, design=Raked.fixed(w))
    b = np.linalg.solve((x * w[:, None]).T @ x, (x * w[:, None]).T @ v)
    e = v - x @ b
    bread = np.linalg.inv((x * w[:, None]).T @ x)
    meat = sum(np.outer(row, row) * (wi * ei) ** 2 for row, wi, ei in zip(x, w, e, strict=True)) * n / (n - 1)
    assert np.allclose(fit.estimate, b) and np.allclose(fit.std_error, np.sqrt(np.diag(bread @ meat @ bread)))
    assert fit.se == "sandwich"


@pytest.mark.parametrize("mechanism", [ldp.OneBitMean(1.0, "0", "10", "1"),
                                       ldp.DiscreteLaplace(1.0, "0", "10", "1")], ids=["onebit", "dlaplace"])
def test_coefficients_from_per_report_values_are_unbiased_and_cover(mechanism):
    rng = np.random.default_rng(3)
    reps, n, beta = 200, 2000, np.array([3.0, 1.5, 2.0])
    covered, z = 0, []
    for _ in range(reps):
        x = np.column_stack([np.ones(n), rng.uniform(0, 2, n), rng.random(n) < 0.5])
        truth = np.clip(np.rint(x @ beta + rng.normal(0, 1, n)), 0, 10).astype(np.int64)
        values = linear_model.per_report_values(mechanism, mechanism.randomize(truth, rng))
        # E[truth | x] is not exactly x'b once rounded and clipped: the target is the fit to the true values
        target = np.linalg.lstsq(x, truth.astype(float), rcond=None)[0]
        fit = linear_model.fit(values, x)
        z.append((np.array(fit.estimate) - target) / np.array(fit.std_error))
        covered += np.sum((np.array(fit.ci_low) <= target) & (target <= np.array(fit.ci_high)))
    z = np.array(z)
    # against the fit to the true values the randomization is the only noise: coverage at least nominal
    assert covered / z.size >= 0.93
    assert np.abs(z.mean(axis=0)).max() < 4 / math.sqrt(reps)


def test_per_report_values_refuse_a_question_that_is_not_numeric():
    with pytest.raises(ValueError, match="numeric"):
        linear_model.per_report_values(ldp.BitFlip(1.0), [0, 1])

"""Each term's Wald test (ldp.regression.logistic, ldp.regression.linear) and the fits' centring and scaling
(ldp.regression.scaling).

The size: under a null term the two-sided test at 5% rejects 5% of seeded surveys, within 2 standard errors of a
proportion (sqrt(0.05 0.95 / R)), over mechanisms. The scale: an income of 0 to 20,000 and its square (X'X over
twenty orders of magnitude) fits, with the fitted probabilities, likelihood and tests of the same model on income
in thousands; so does a number above 10^7 alone."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.regression import linear as linear_model
from ldp.regression import logistic
from ldp.regression.scaling import scaled
from tests.ldp.regression.test_logistic import reports

SURVEYS = 600
N = 1500


def null_surveys(mechanism, se: str) -> float:
    """The share of SURVEYS whose null term (a normal covariate with no effect, beside a binary one with an
    effect) the 5% test rejects."""
    rng = np.random.default_rng(zlib.crc32(f"{mechanism.to_dict()}{se}".encode()))
    rejected = 0
    for _ in range(SURVEYS):
        x = np.column_stack([np.ones(N), rng.normal(size=N), rng.random(N) < 0.4])
        y = reports(rng, mechanism, x, np.array([-0.3, 0.0, 0.8]))
        found = logistic.fit(y, x, mechanism.p, mechanism.q_other, se=se)
        rejected += found.p_values[1] < 0.05
    return rejected / SURVEYS


@pytest.mark.slow
@pytest.mark.parametrize(("mechanism", "se"), [(ldp.QRandomizedResponse("0.5"), "observed"),
                                               (ldp.BitFlip(1.5), "observed"), (ldp.BitFlip(1.5), "opg"),
                                               (ldp.KaryRR(2.0, 3), "observed")],
                         ids=["qrr-0.5", "bitflip-1.5", "bitflip-1.5-opg", "krr-2-k3"])
def test_each_terms_wald_test_has_its_size_under_a_null_term(mechanism, se):
    share = null_surveys(mechanism, se)
    assert abs(share - 0.05) < 2 * math.sqrt(0.05 * 0.95 / SURVEYS), share


def test_the_p_values_are_the_two_sided_normal_tail_of_z():
    rng = np.random.default_rng(11)
    mechanism = ldp.BitFlip(2.0)
    x = np.column_stack([np.ones(3000), rng.normal(size=3000), rng.random(3000) < 0.5])
    found = logistic.fit(reports(rng, mechanism, x, np.array([-0.5, 0.4, 0.0])), x, mechanism.p, mechanism.q_other)
    z = np.array(found.estimate) / np.array(found.std_error)
    assert list(found.z) == pytest.approx(list(z), rel=1e-12)
    assert list(found.p_values) == pytest.approx(list(2 * stats.norm.sf(np.abs(z))), rel=1e-10)
    assert found.to_dict()["p_values"] == list(found.p_values)


def test_a_linear_terms_p_value_is_students_t_and_agrees_with_its_interval():
    rng = np.random.default_rng(12)
    x = np.column_stack([np.ones(40), rng.normal(size=40), rng.normal(size=40)])
    v = 1.0 + 0.5 * x[:, 1] + rng.normal(size=40)
    found = linear_model.fit(v, x, confidence=0.95)
    t = np.array(found.estimate) / np.array(found.std_error)
    assert list(found.p_values) == pytest.approx(list(2 * stats.t.sf(np.abs(t), 37)), rel=1e-9)
    excludes_zero = [low > 0 or high < 0 for low, high in zip(found.ci_low, found.ci_high, strict=True)]
    assert [p < 0.05 for p in found.p_values] == excludes_zero


def incomes(seed: int = 7, n: int = 4000):
    rng = np.random.default_rng(seed)
    income = np.round(rng.uniform(0, 20_000, size=n))
    renter = (rng.random(n) < 0.4).astype(float)
    k = income / 1000
    truth = rng.random(n) < 1 / (1 + np.exp(-(-1.5 + 0.3 * k - 0.012 * k**2 + 0.5 * renter)))
    mechanism = ldp.BitFlip(2.0)
    return income, renter, mechanism.randomize(truth.astype(np.int64), rng).astype(float), mechanism


def test_an_income_in_units_with_its_square_fits_as_the_same_model_in_thousands():
    income, renter, y, mechanism = incomes()
    units = np.column_stack([np.ones(income.size), income, income**2, renter])
    thousands = np.column_stack([np.ones(income.size), income / 1000, (income / 1000) ** 2, renter])
    a = logistic.fit(y, units, mechanism.p, mechanism.q_other)
    b = logistic.fit(y, thousands, mechanism.p, mechanism.q_other)
    assert a.converged and b.converged
    fitted = [1 / (1 + np.exp(-(x @ np.array(f.estimate)))) for x, f in ((units, a), (thousands, b))]
    assert np.abs(fitted[0] - fitted[1]).max() < 1e-9
    assert a.log_likelihood == pytest.approx(b.log_likelihood, rel=1e-12)
    # Coefficients and standard errors scale with the units; z, p-values and the renters' row do not.
    assert [a.estimate[1] * 1e3, a.estimate[2] * 1e6] == pytest.approx(list(b.estimate[1:3]), rel=1e-7)
    assert [a.std_error[1] * 1e3, a.std_error[2] * 1e6] == pytest.approx(list(b.std_error[1:3]), rel=1e-7)
    assert list(a.z) == pytest.approx(list(b.z), rel=1e-7) and a.estimate[3] == pytest.approx(b.estimate[3], rel=1e-7)
    assert a.statistic == pytest.approx(b.statistic, rel=1e-9)
    linear = [linear_model.fit(y, x) for x in (units, thousands)]
    assert linear[0].estimate[2] * 1e6 == pytest.approx(linear[1].estimate[2], rel=1e-7)


def test_a_number_above_ten_million_alone_fits():
    income, _, y, mechanism = incomes(seed=8)
    big = np.column_stack([np.ones(income.size), 5e7 + income * 1000])
    small = np.column_stack([np.ones(income.size), income / 1000])
    a, b = (logistic.fit(y, x, mechanism.p, mechanism.q_other) for x in (big, small))
    assert a.converged and a.estimate[1] * 1e6 == pytest.approx(b.estimate[1], rel=1e-7)
    assert a.p_values[1] == pytest.approx(b.p_values[1], rel=1e-6)


def test_collinear_still_means_collinear_after_scaling():
    income, renter, y, mechanism = incomes()
    for x in (np.column_stack([np.ones(income.size), income, 2 * income + 3]),
              np.column_stack([np.ones(income.size), income, np.full(income.size, 5.0)])):
        with pytest.raises(ValueError, match="collinear"):
            logistic.fit(y, x, mechanism.p, mechanism.q_other)
        with pytest.raises(ValueError, match="collinear"):
            linear_model.fit(y, x)


def test_the_scaling_maps_coefficients_and_covariances_back_exactly():
    rng = np.random.default_rng(3)
    x = np.column_stack([np.ones(50), rng.uniform(0, 2e4, 50), rng.random(50) < 0.5])
    counts = rng.integers(1, 4, size=50).astype(float)
    found = scaled(x, counts)
    g = rng.normal(size=3)
    assert np.allclose(found.z @ g, x @ found.coefficients(g), rtol=1e-12, atol=1e-9)
    z = found.z
    assert np.allclose(counts @ z[:, 1:] / counts.sum(), 0, atol=1e-12)  # centred over the respondents
    assert np.allclose(np.sqrt(counts @ z[:, 1:] ** 2 / counts.sum()), 1, rtol=1e-12)
    cov = np.diag([1.0, 2.0, 3.0])
    assert np.allclose(found.covariance(cov), found.back @ cov @ found.back.T)

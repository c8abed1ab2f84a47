"""ldp.regression.logistic in simulation (seeded; tolerances from the standard errors): the coefficients are unbiased
and their intervals cover at 95% for n >= 2,000 across mechanisms and epsilons, the likelihood-ratio test
has its size under a null model, weighted fits' sandwich intervals cover, the power calculation gives the
power it promises, and fits without a finite maximum say so. About 15 s on one core (1,500 fits: coverage
needs hundreds of surveys).
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.regression import likelihood as channel_likelihood
from ldp.regression import logistic, logistic_maximum, logistic_power
from ldp.weighting.raking import Raked

BETA = np.array([-0.5, 0.8, -0.6])


def covariates(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.column_stack([np.ones(n), rng.normal(size=n), rng.random(n) < 0.4])


def reports(rng: np.random.Generator, mechanism, x: np.ndarray, beta: np.ndarray) -> np.ndarray:
    truth = (rng.random(x.shape[0]) < 1.0 / (1.0 + np.exp(-x @ beta))).astype(np.int64)
    if mechanism.k > 2:  # the modelled option is 0; a false answer is one of the others
        truth = np.where(truth == 1, 0, rng.integers(1, mechanism.k, size=truth.size))
        return (mechanism.randomize(truth, rng) == 0).astype(float)
    return mechanism.randomize(truth, rng).astype(float)


@pytest.mark.parametrize("mechanism", [ldp.QRandomizedResponse("0.5"), ldp.QRandomizedResponse("0.8"),
                                       ldp.BitFlip(1.0), ldp.BitFlip(3.0), ldp.KaryRR(2.0, 4)],
                         ids=["qrr-0.5", "qrr-0.8", "bitflip-1", "bitflip-3", "krr-2-k4"])
def test_coefficients_are_unbiased_and_their_intervals_cover(mechanism):
    rng = np.random.default_rng(zlib.crc32(repr(mechanism.to_dict()).encode()))
    reps, n = 150, 2000
    z, covered = [], 0
    for _ in range(reps):
        x = covariates(rng, n)
        fit = logistic.fit(reports(rng, mechanism, x, BETA), x, mechanism.p, mechanism.q_other)
        assert fit.converged, fit.messages
        z.append((np.array(fit.estimate) - BETA) / np.array(fit.std_error))
        covered += np.sum((np.array(fit.ci_low) <= BETA) & (BETA <= np.array(fit.ci_high)))
    z = np.array(z)
    assert covered / z.size >= 0.93
    # unbiased: each coefficient's mean error within 4 of its standard errors over `reps` fits
    assert np.abs(z.mean(axis=0)).max() < 4 / math.sqrt(reps)
    assert np.all((z.std(axis=0) > 0.85) & (z.std(axis=0) < 1.2))


def test_the_likelihood_ratio_test_has_its_size_under_a_null_model():
    rng = np.random.default_rng(11)
    mechanism = ldp.BitFlip(1.5)
    reps, n = 400, 2000
    p_values = []
    for _ in range(reps):
        x = covariates(rng, n)
        fit = logistic.fit(reports(rng, mechanism, x, np.array([0.3, 0.0, 0.0])), x, mechanism.p, mechanism.q_other)
        assert fit.test == "likelihood ratio" and fit.df == 2
        p_values.append(fit.p_value)
    rejected = np.mean(np.array(p_values) < 0.05)
    assert abs(rejected - 0.05) < 4 * math.sqrt(0.05 * 0.95 / reps)
    assert stats.kstest(p_values, "uniform").pvalue > 0.001


def test_the_statistic_is_twice_the_gain_over_the_closed_form_intercept_only_maximum():
    rng = np.random.default_rng(12)
    mechanism = ldp.QRandomizedResponse("0.5")
    x = covariates(rng, 3000)
    y = reports(rng, mechanism, x, BETA)
    fit = logistic.fit(y, x, mechanism.p, mechanism.q_other)
    alone = logistic.fit(y, x[:, :1], mechanism.p, mechanism.q_other)
    assert alone.log_likelihood == pytest.approx(fit.null_log_likelihood, abs=1e-8)
    assert fit.statistic == pytest.approx(2 * (fit.log_likelihood - alone.log_likelihood), abs=1e-7)
    assert fit.p_value == pytest.approx(stats.chi2.sf(fit.statistic, 2), rel=1e-9, abs=1e-300)
    assert np.allclose(fit.odds_ratio, np.exp(fit.estimate)) and np.allclose(fit.odds_ratio_low, np.exp(fit.ci_low))


def test_weighted_fits_cover_with_the_sandwich():
    rng = np.random.default_rng(13)
    mechanism = ldp.BitFlip(2.0)
    reps, n = 100, 2000
    covered, z = 0, []
    for _ in range(reps):
        x = covariates(rng, n)
        y = reports(rng, mechanism, x, BETA)
        weights = np.where(x[:, 2] > 0, 2.5, 1.0) * rng.uniform(0.5, 1.5, size=n)
        fit = logistic.fit(y, x, mechanism.p, mechanism.q_other, design=Raked.fixed(weights))
        assert fit.se == "sandwich" and fit.test == "wald" and fit.covariance_opg is None
        covered += np.sum((np.array(fit.ci_low) <= BETA) & (BETA <= np.array(fit.ci_high)))
        z.append((np.array(fit.estimate) - BETA) / np.array(fit.std_error))
    assert covered / (3 * reps) >= 0.93
    assert np.abs(np.mean(z, axis=0)).max() < 4 / math.sqrt(reps)


def test_the_power_calculation_gives_the_power_it_promises():
    rng = np.random.default_rng(14)
    mechanism = ldp.QRandomizedResponse("0.6")
    n = logistic_power.respondents_for_odds_ratio(2.0, mechanism.p, mechanism.q_other, baseline=0.2, power=0.8)
    beta = np.array([math.log(0.2 / 0.8), math.log(2.0)])
    reps, rejected = 200, 0
    for _ in range(reps):
        x = np.column_stack([np.ones(n), rng.random(n) < 0.5])
        fit = logistic.fit(reports(rng, mechanism, x, beta), x, mechanism.p, mechanism.q_other)
        rejected += abs(fit.estimate[1] / fit.std_error[1]) > stats.norm.ppf(0.975)
    assert abs(rejected / reps - 0.8) < 4 * math.sqrt(0.8 * 0.2 / reps)


def test_a_fit_whose_maximum_is_at_infinity_says_so():
    rng = np.random.default_rng(15)
    mechanism = ldp.Direct(2)  # a direct question: plain logistic regression, where separation is familiar
    x = np.column_stack([np.ones(500), rng.normal(size=500)])
    y = (x[:, 1] > 0).astype(float)
    fit = logistic.fit(y, x, mechanism.p, mechanism.q_other)
    assert not fit.converged and any("separate" in message for message in fit.messages)


def test_reports_outside_the_channel_s_range_say_the_maximum_is_at_the_boundary():
    mechanism = ldp.QRandomizedResponse("0.5")  # report rates lie in [0.25, 0.75]
    x = np.ones((400, 1))
    y = np.r_[np.ones(20), np.zeros(380)]  # 5% yes reports: below q
    fit = logistic.fit(y, x, mechanism.p, mechanism.q_other)
    assert not fit.converged and fit.messages


def test_it_keeps_the_higher_of_the_two_starts():
    rng = np.random.default_rng(16)
    mechanism = ldp.BitFlip(1.0)
    x = covariates(rng, 3000)
    y = reports(rng, mechanism, x, BETA)
    fit = logistic.fit(y, x, mechanism.p, mechanism.q_other)
    model = channel_likelihood.Model(y, x, mechanism.p, mechanism.q_other, None)
    for b in (np.zeros(3), logistic_maximum.debiased_start(y, x, mechanism.p, mechanism.q_other, None)):
        assert model.loglik(logistic_maximum.newton(model, b)[0].b) <= fit.log_likelihood + 1e-9
    assert fit.start in ("zero", "debiased")


@pytest.mark.parametrize("y, x, message", [
    ([0, 1, 2], np.ones((3, 1)), "0 or 1"),
    ([0, 1, 1, 0], np.column_stack([np.ones(4), np.ones(4)]), "collinear"),
    ([0, 1], np.ones((3, 1)), "one row per report"),
])
def test_it_rejects_what_it_cannot_fit(y, x, message):
    with pytest.raises(ValueError, match=message):
        logistic.fit(y, x, 0.75, 0.25)


@pytest.mark.parametrize("se", ["observed", "opg"])
def test_data_separated_so_far_that_the_information_is_singular_get_the_message_not_an_error(se):
    """Every report of one group is 1 and n is small: Cholesky succeeds on a nearly singular information, whose
    inverse then failed (LinAlgError escaped to the app and the command line). Found by search (seed 212)."""
    rng = np.random.default_rng(212)
    group = (np.arange(20) % 2).astype(float)
    y = np.where(group == 1, 1, rng.integers(0, 2, 20))
    x = np.column_stack([np.ones(20), group, rng.normal(size=20)])
    found = logistic.fit(y, x, 0.75, 0.25, se=se)
    assert not found.converged and any(m.startswith("the data separate") for m in found.messages), found.messages

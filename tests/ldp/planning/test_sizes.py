"""ldp.planning.sizes: respondents needed, margins, and the k-RR vs OUE advice."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from tests.ldp.support import describe, simulate_counts

PLAN_MECHANISMS = [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(1.0), ldp.BitFlip(4.0), ldp.KaryRR(1.0, 5),
                   ldp.KaryRR(2.0, 30), ldp.SymmetricUnary(1.5, 8), ldp.OptimizedUnary(0.5, 4)]


def z(confidence):
    return stats.norm.ppf(1 - (1 - confidence) / 2)


@pytest.mark.parametrize("m", PLAN_MECHANISMS, ids=describe)
@pytest.mark.parametrize("margin", [0.01, 0.03, 0.05, 0.1])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_worst_case_respondents_follow_the_closed_form(m, margin, confidence):
    raw = z(confidence) ** 2 / (4 * margin**2 * (m.p - m.q_other) ** 2)
    assert abs(raw - round(raw)) > 1e-6, "too close to an integer to compare ceilings"
    assert ldp.respondents_needed(m, margin, confidence) == math.ceil(raw)


@pytest.mark.parametrize("m", PLAN_MECHANISMS, ids=describe)
@pytest.mark.parametrize("margin", [0.01, 0.05, 0.2])
@pytest.mark.parametrize("expected", [None, 0.0, 0.05, 0.5, 1.0])
def test_the_planned_n_reaches_the_margin_and_one_fewer_does_not(m, margin, expected):
    n = ldp.respondents_needed(m, margin, expected=expected)
    assert ldp.margin_at(m, n, expected=expected) <= margin * (1 + 1e-12)
    if n > 1:
        assert ldp.margin_at(m, n - 1, expected=expected) > margin


@pytest.mark.parametrize("m", PLAN_MECHANISMS, ids=describe)
def test_margin_at_is_the_normal_half_width(m):
    for n, expected in [(100, None), (2500, 0.2), (10**6, 0.0)]:
        lam = 0.5 if expected is None else m.q_other + expected * (m.p - m.q_other)
        half_width = z(0.95) * math.sqrt(lam * (1 - lam) / n) / (m.p - m.q_other)
        assert ldp.margin_at(m, n, expected=expected) == pytest.approx(half_width, rel=1e-12)
    assert ldp.margin_at(m, 0) == math.inf


@pytest.mark.parametrize("m", PLAN_MECHANISMS, ids=describe)
def test_an_expected_fraction_needs_fewer_respondents_than_the_worst_case(m):
    worst = ldp.respondents_needed(m, 0.05)
    for expected in (0.0, 0.02, 0.1):
        lam = m.q_other + expected * (m.p - m.q_other)
        formula = math.ceil(z(0.95) ** 2 * lam * (1 - lam) / (0.05**2 * (m.p - m.q_other) ** 2))
        needed = ldp.respondents_needed(m, 0.05, expected=expected)
        assert needed == formula
        if abs(lam - 0.5) > 1e-3:
            assert needed < worst


@pytest.mark.parametrize("kwargs, word", [
    ({"margin": 0.0}, "margin"), ({"margin": 1.0}, "margin"), ({"margin": -0.1}, "margin"),
    ({"margin": math.nan}, "margin"), ({"margin": 0.05, "confidence": 1.0}, "confidence"),
    ({"margin": 0.05, "expected": 1.5}, "expected"), ({"margin": 0.05, "expected": -0.1}, "expected"),
])
def test_respondents_needed_rejects_bad_arguments(kwargs, word):
    with pytest.raises(ValueError, match=word):
        ldp.respondents_needed(ldp.BitFlip(1.0), **kwargs)


@pytest.mark.slow
def test_a_seeded_survey_at_the_planned_size_achieves_the_margin():
    m, margin, reps = ldp.BitFlip(1.0), 0.05, 2000
    n = ldp.respondents_needed(m, margin)
    pi = [0.5, 0.5]  # lambda = 1/2: the worst case the plan is for
    counts = simulate_counts(m, pi, n, reps, np.random.default_rng(2025))
    estimates = [m.estimate(c, n) for c in counts]
    yes = np.array([e.estimate[1] for e in estimates])
    half_widths = np.array([(e.ci_high[1] - e.ci_low[1]) / 2 for e in estimates])
    # z * SD(estimate) is the margin the plan promises. The sample SD over R reps has relative
    # SE ~ 1/sqrt(2(R-1)) = 1.6%; 5 SE = 8%.
    achieved = z(0.95) * yes.std(ddof=1)
    assert achieved == pytest.approx(margin, rel=5 / math.sqrt(2 * (reps - 1)))
    # The reported intervals have about that half-width: the continuity correction adds at most
    # 1/(z sqrt(n)) relative (~1.2% here), Wilson's shrinkage n/(n + z^2) removes ~0.2%, and
    # the rate varies by O(1/sqrt(n)) around 1/2, which changes sqrt(lam(1-lam)) only to 2nd order.
    slack = 1 / (z(0.95) * math.sqrt(n)) + z(0.95) ** 2 / n + 0.005
    assert half_widths.mean() == pytest.approx(margin, rel=slack)
    assert half_widths.mean() >= margin * (1 - slack)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, math.log(3), 2.0, 3.0])
@pytest.mark.parametrize("k", [2, 3, 5, 8, 12, 20, 40, 64])
def test_advise_compares_the_closed_form_variances(k, epsilon):
    e = math.exp(epsilon)
    advice = ldp.advise(k, epsilon)
    variances = advice["variance_per_respondent"]
    # Integer rounding moves p and q by ~1e-9, so the variances agree to ~1e-6 relative.
    assert variances["krr"] == pytest.approx((e + k - 2) / (e - 1) ** 2, rel=1e-5)
    assert variances["oue"] == pytest.approx(4 * e / (e - 1) ** 2, rel=1e-5)
    assert (advice["k"], advice["epsilon"]) == (k, epsilon)
    switch = 3 * e + 2  # k-RR wins below, OUE above
    if abs(k - switch) > 1e-3:
        assert advice["recommended"] == ("krr" if k < switch else "oue")


def test_advise_recommends_krr_for_few_options_and_oue_for_many():
    assert ldp.advise(3, 1.0)["recommended"] == "krr"
    assert ldp.advise(50, 1.0)["recommended"] == "oue"
    # Around the switch k = 3e^eps + 2 (= 10.15 at eps = 1).
    assert ldp.advise(10, 1.0)["recommended"] == "krr"
    assert ldp.advise(11, 1.0)["recommended"] == "oue"


def test_advise_validates_its_arguments():
    with pytest.raises(ValueError, match="epsilon"):
        ldp.advise(3, 20.0)
    with pytest.raises(ValueError, match="k must"):
        ldp.advise(1, 1.0)

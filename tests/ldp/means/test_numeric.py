"""ldp.means.numeric and planning for numeric questions: which mechanism is less noisy, and how many respondents."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.means.numeric import per_report_variance, worst_mean_variance, worst_report_variance


def closed_forms(epsilon: float, width: float, steps: int) -> tuple[float, float]:
    """The design's real-valued forms: (hi - lo)^2 (e^eps + 1)^2 / (4 (e^eps - 1)^2) for the 1-bit mean at the
    middle of the range, step^2 2a / (1 - a)^2 with a = e^(-eps / steps) for discrete Laplace."""
    e = math.exp(epsilon)
    a = math.exp(-epsilon / steps)
    return width**2 * (e + 1) ** 2 / (4 * (e - 1) ** 2), (width / steps) ** 2 * 2 * a / (1 - a) ** 2


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("lo, hi, step", [("0", "10", "1"), ("-1", "1", "0.5"), ("0", "100", "0.25")])
def test_per_report_variances_follow_the_closed_forms(epsilon, lo, hi, step):
    got = per_report_variance(epsilon, lo, hi, step)
    width, steps = float(hi) - float(lo), round((float(hi) - float(lo)) / float(step))
    onebit, laplace = closed_forms(epsilon, width, steps)
    # The integers are within a few / 2^32 of the real channel (relative 1e-6 at most, see mechanisms/test_sampling.py).
    assert set(got) == {"onebit", "dlaplace"}
    assert got["onebit"] == pytest.approx(onebit, rel=1e-6)
    assert got["dlaplace"] == pytest.approx(laplace, rel=1e-6)


@pytest.mark.parametrize("steps", [2, 10, 100, 1000])
def test_the_one_bit_mean_wins_at_small_epsilon_and_laplace_at_large(steps):
    small, large = per_report_variance(0.1, "0", str(steps), "1"), per_report_variance(10.0, "0", str(steps), "1")
    assert small["onebit"] < small["dlaplace"]
    assert large["dlaplace"] < large["onebit"]


def test_with_a_single_step_the_one_bit_mean_always_wins():
    """Two grid values need no rounding: the 1-bit mean is then randomized response, e^eps / (e^eps - 1)^2
    per report against Laplace's 2 e^-eps / (1 - e^-eps)^2, twice as much, at every epsilon."""
    for epsilon in (0.05, 1.0, 10.0):
        got = per_report_variance(epsilon, "0", "1", "1")
        # At eps = 10, M - keep is ~2^32 e^-10 ~ 2e5, so the bit flip's integers are within ~5e-6 relative.
        assert got["dlaplace"] == pytest.approx(2 * got["onebit"], rel=2e-5)


def test_the_worst_case_is_the_middle_for_the_one_bit_mean_and_anywhere_for_laplace():
    for steps in (1, 4, 7):
        m = ldp.OneBitMean(1.0, "0", str(steps), "1")
        variances = [m.report_variance(i) for i in range(steps + 1)]
        assert worst_report_variance(m) == max(variances)
        assert variances[0] == variances[-1] == min(variances)
        laplace = ldp.DiscreteLaplace(1.0, "0", str(steps), "1")
        assert len({laplace.report_variance(i) for i in range(steps + 1)}) == 1


def test_the_worst_case_variance_is_what_a_survey_at_the_worst_values_shows():
    """Simulated: everyone in the middle (the 1-bit mean's worst) and everyone at one end (Laplace's is flat)."""
    rng = np.random.default_rng(11)
    n, reps = 200, 3000
    for m, truth in ((ldp.OneBitMean(0.5, "0", "10", "1"), 5), (ldp.DiscreteLaplace(0.5, "0", "10", "1"), 0)):
        reports = m.randomize(np.full(n * reps, truth), rng).reshape(reps, n)
        means = [m.estimate_mean(*m.histogram(row)).mean for row in reports]
        # relative SE of a sample variance over 3000 reps: sqrt(2 / 2999) = 0.026; 12% is > 4.5 of them.
        assert np.var(means, ddof=1) == pytest.approx(worst_report_variance(m) / n, rel=0.12)


@pytest.mark.parametrize("m", [ldp.OneBitMean(1.0, "0", "10", "1"), ldp.OneBitMean(0.2, "-50", "50", "0.5"),
                               ldp.DiscreteLaplace(1.0, "0", "10", "1"), ldp.DiscreteLaplace(4.0, "1", "5", "1")],
                         ids=lambda m: f"{m.name}-{m.epsilon:g}-{m.steps}")
@pytest.mark.parametrize("margin, confidence", [(0.1, 0.95), (0.5, 0.9), (2.0, 0.99)])
def test_mean_respondents_needed_is_the_smallest_n_for_the_margin(m, margin, confidence):
    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    if m.name == "onebit":
        worst = m.width**2 / (4 * (m.p - m.q_other) ** 2)
    else:  # the spread of true values at both ends plus the noise
        worst = m.width**2 / 4 + float(m.step) ** 2 * m.noise_variance
    assert worst_mean_variance(m) == pytest.approx(worst, rel=1e-12)
    n = ldp.mean_respondents_needed(m, margin, confidence)
    assert z * math.sqrt(worst / n) <= margin * (1 + 1e-12)
    assert n == 1 or z * math.sqrt(worst / (n - 1)) > margin


def test_mean_respondents_needed_holds_its_margin_at_the_worst_values():
    """Half the respondents at each end: the worst case for both; the interval's half-width stays within the
    margin on average (its mean over 500 simulated surveys, each SE estimated from 1 survey)."""
    rng = np.random.default_rng(3)
    for m in (ldp.OneBitMean(1.0, "0", "10", "1"), ldp.DiscreteLaplace(2.0, "0", "10", "1")):
        n = ldp.mean_respondents_needed(m, 0.5)
        truth = np.where(np.arange(n) % 2 == 0, 0, m.steps)
        halves = []
        for _ in range(500):
            e = m.estimate_mean(*m.histogram(m.randomize(truth, rng)))
            halves.append(1.96 * e.std_error)
        assert np.mean(halves) <= 0.5 * 1.01


def test_mean_respondents_needed_refuses_other_mechanisms_and_bad_margins():
    with pytest.raises(ValueError, match="respondents_needed"):
        ldp.mean_respondents_needed(ldp.KaryRR(1.0, 3), 0.1)
    for margin in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="margin"):
            ldp.mean_respondents_needed(ldp.OneBitMean(1.0, "0", "1", "1"), margin)

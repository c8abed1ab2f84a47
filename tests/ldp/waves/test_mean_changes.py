"""The change of a numeric mean between two waves (`ldp.waves.pairs.between_means`), tested by seeded simulation
for each mechanism a mean is asked with (1-bit mean, discrete Laplace, a number sent as given): the change is
unbiased (its average over the draws within 4 standard errors of the true change) and its interval covers the true
change at its level (within 3 binomial standard errors) for waves of different respondents; with respondents in
both, whose answers covary in a way their reports do not tell, it covers at least at its level whatever that
correlation (one that keeps answers, one that turns them round). No database; about 20 s on one core."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.stats.estimates import MeanEstimate
from ldp.waves.pairs import INDEPENDENT, UNKNOWN, between_means

REPS, LEVEL = 1500, 0.9
SIZES = (500, 400)
STEPS = 10  # the grid 0, 1, ..., 10
# Each wave's true distribution over the grid (wave 2's mean is higher).
TRUTHS = (np.array([3, 3, 4, 4, 4, 3, 2, 2, 1, 1, 1], dtype=float), np.array([1, 1, 2, 2, 3, 4, 4, 4, 3, 3, 2],
                                                                             dtype=float))
TRUTHS = tuple(t / t.sum() for t in TRUTHS)
TRUE_CHANGE = float(np.arange(STEPS + 1) @ TRUTHS[1] - np.arange(STEPS + 1) @ TRUTHS[0])
MECHANISMS = {"onebit": ldp.OneBitMean(1.0, "0", "10", "1"), "dlaplace": ldp.DiscreteLaplace(1.0, "0", "10", "1"),
              "direct_number": ldp.DirectNumber("0", "10", "1")}


def mean_of(mechanism, truths: np.ndarray, rng: np.random.Generator) -> MeanEstimate:
    return mechanism.estimate_mean(*mechanism.histogram(mechanism.randomize(truths, rng)), confidence=LEVEL)


def panel(rng: np.random.Generator, shared: int, how: str) -> tuple[np.ndarray, np.ndarray]:
    """Two waves' true answers: `shared` respondents in both (first in each wave), the rest in one wave only.
    how: "keep" (a shared respondent keeps their answer when wave 2's distribution allows: the fewest changes),
    "turn" (answers i in wave 1 and about steps - i in wave 2: as negatively correlated as these waves allow)."""
    one = rng.choice(STEPS + 1, size=SIZES[0], p=TRUTHS[0])
    two = rng.choice(STEPS + 1, size=SIZES[1], p=TRUTHS[1])
    if shared:
        u = rng.random(shared)  # one quantile per shared respondent: comonotone or antitone draws of the truths
        first = np.searchsorted(np.cumsum(TRUTHS[0]), u, side="right").clip(0, STEPS)
        second = np.searchsorted(np.cumsum(TRUTHS[1]), u if how == "keep" else 1 - u, side="right").clip(0, STEPS)
        one[:shared], two[:shared] = first, second
    return one, two


def simulate(name: str, shared: int = 0, how: str = "keep", seed: int = 1) -> tuple[np.ndarray, np.ndarray, list]:
    """REPS changes: their estimates, whether each interval covers the true change, and (the change, the two
    waves' means) of each draw."""
    rng = np.random.default_rng(seed)
    mechanism = MECHANISMS[name]
    draws = []
    for _ in range(REPS):
        one, two = (mean_of(mechanism, truths, rng) for truths in panel(rng, shared, how))
        draws.append((between_means(one, two, shared, LEVEL), one, two))
    changes = [change for change, _one, _two in draws]
    return np.array([c.estimate[0] for c in changes]), covers(changes), draws


def covers(changes: list) -> np.ndarray:
    return np.array([c.ci_low[0] <= TRUE_CHANGE <= c.ci_high[0] for c in changes])


def binomial_se(level: float) -> float:
    return math.sqrt(level * (1 - level) / REPS)


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_the_change_of_independent_waves_is_unbiased_and_covers_at_its_level(name):
    estimates, covered, draws = simulate(name)
    changes = [change for change, _one, _two in draws]
    assert abs(estimates.mean() - TRUE_CHANGE) < 4 * estimates.std(ddof=1) / math.sqrt(REPS)
    assert abs(covered.mean() - LEVEL) < 3 * binomial_se(LEVEL)
    assert {c.correlation for c in changes} == {INDEPENDENT} and {c.shared for c in changes} == {0}
    # its standard error is the spread of the estimates: not larger than it need be
    assert np.mean([c.std_error[0] for c in changes]) == pytest.approx(estimates.std(ddof=1), rel=0.08)


@pytest.mark.parametrize("name", ["onebit", "dlaplace"])
@pytest.mark.parametrize("how", ["keep", "turn"])
def test_with_respondents_in_both_waves_it_covers_at_least_at_its_level_whatever_their_correlation(name, how):
    estimates, covered, draws = simulate(name, shared=300, how=how, seed=2)
    changes = [change for change, _one, _two in draws]
    assert abs(estimates.mean() - TRUE_CHANGE) < 4 * estimates.std(ddof=1) / math.sqrt(REPS)
    assert covered.mean() > LEVEL - 3 * binomial_se(LEVEL)
    assert {c.correlation for c in changes} == {UNKNOWN} and {c.shared for c in changes} == {300}


def test_answers_turned_round_between_waves_need_the_largest_variance():
    """Sent as given, 300 of 400 respondents in both waves turning their answers round: the variance of two
    independent waves would cover far too rarely (what the largest variance is there for)."""
    _estimates, covered, draws = simulate("direct_number", shared=300, how="turn", seed=3)
    assert covered.mean() > LEVEL - 3 * binomial_se(LEVEL)
    as_if_independent = covers([between_means(one, two, 0, LEVEL) for _change, one, two in draws])
    assert as_if_independent.mean() < LEVEL - 10 * binomial_se(LEVEL)


def test_it_says_the_figures_of_one_change():
    first, second = MeanEstimate(4.0, 0.3, 3.4, 4.6, 0.95, 100), MeanEstimate(5.0, 0.4, 4.2, 5.8, 0.95, 80)
    change = between_means(first, second, 0, 0.95)
    z = 1.0 / 0.5
    assert change.estimate == (1.0,) and change.std_error == (0.5,) and change.z == (z,)
    assert change.ci_low[0] == pytest.approx(1.0 - 1.959963984540054 * 0.5, rel=1e-12)
    assert change.p_value[0] == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-12)
    shared = between_means(first, second, 500, 0.95)
    assert (shared.std_error, shared.shared, shared.correlation) == ((0.7,), 80, UNKNOWN)
    with pytest.raises(ValueError):
        between_means(MeanEstimate(math.nan, math.nan, 0, 10, 0.95, 0), second, 0)

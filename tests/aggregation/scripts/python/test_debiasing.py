"""The analysis script's debiasing (surveys.aggregation.scripts.python.debiasing), imported directly: the
estimates and intervals equal ldp.debias's (the app's), are unbiased on simulated reports (to four standard errors), and
the means are the means of their values."""

import math
import statistics

import numpy as np
import pytest
from scipy import stats

import ldp
from surveys.aggregation.scripts.python import debiasing

P, Q = 0.7, 0.1  # a k-ary randomized response with k = 4: p + 3 q = 1


def randomized(truth, n, seed):
    """n reports of k-ary randomized response with channel (P, Q) from answers drawn with the shares `truth`."""
    rng = np.random.default_rng(seed)
    answers = rng.choice(len(truth), size=n, p=truth)
    keep = rng.random(n) < P - Q  # kept with probability p - q, else uniform over the k options
    return np.where(keep, answers, rng.integers(0, len(truth), size=n))


@pytest.mark.parametrize(("interval", "simultaneous"), [("wilson", False), ("exact", True)])
def test_debias_gives_ldps_estimates_and_intervals(interval, simultaneous):
    counts, n = [120, 30, 0, 50], 200
    found = debiasing.debias(counts, n, P, Q, 0.9, interval, simultaneous)
    app = ldp.debias(counts, n, P, Q, confidence=0.9, interval=interval, simultaneous=simultaneous)
    for mine, theirs in zip(found[:4], (app.estimate, app.std_error, app.ci_low, app.ci_high), strict=True):
        assert mine == pytest.approx(theirs, abs=1e-12)
    assert found[4] == pytest.approx(1 - 0.1 / 4 if simultaneous else 0.9)


def test_debias_is_unbiased_on_simulated_reports():
    truth = np.array([0.5, 0.3, 0.15, 0.05])
    reports = randomized(truth, 20000, seed=3)
    estimate, std_error, low, high, _ = debiasing.debias(np.bincount(reports, minlength=4).tolist(), reports.size,
                                                         P, Q, 0.95, "wilson", False)
    assert np.all(np.abs(estimate - truth) < 4 * std_error)
    assert np.all((low <= truth) & (truth <= high))


def test_debias_without_reports_gives_no_estimate_and_the_whole_interval():
    estimate, std_error, low, high, _ = debiasing.debias([0, 0], 0, P, Q, 0.95, "wilson", False)
    assert np.isnan(estimate).all() and np.isnan(std_error).all()
    assert low.tolist() == [0.0, 0.0] and high.tolist() == [1.0, 1.0]


def test_a_direct_mean_is_the_exact_mean_with_a_student_t_interval():
    q = {"scale": {"lo": "10", "hi": "20", "step": "0.5"}}
    indexes = {0: 2, 4: 1, 10: 3}  # grid index i: how often
    values = [10 + 0.5 * i for i, c in indexes.items() for _ in range(c)]
    mean, std_error, low, high = debiasing.direct_mean(q, indexes, 6, 0.95)
    assert mean == pytest.approx(statistics.mean(values))
    assert std_error == pytest.approx(statistics.stdev(values) / math.sqrt(6))
    half = stats.t.ppf(0.975, 5) * std_error
    assert (low, high) == pytest.approx((max(10.0, mean - half), min(20.0, mean + half)))


def test_a_onebit_mean_maps_its_bits_share_onto_the_scale():
    q = {"mechanism": {"p_exact": "3/4", "q_other_exact": "1/4"}, "scale": {"lo": "0", "hi": "10", "step": "1"}}
    mean, _, low, high = debiasing.onebit_mean(q, [40, 60], 100, 0.95)
    assert mean == pytest.approx(10 * (0.6 - 0.25) / 0.5)
    assert 0 <= low < mean < high <= 10


def test_project_to_simplex_keeps_a_point_on_it_and_clips_one_off_it():
    on = np.array([0.2, 0.3, 0.5])
    assert debiasing.project_to_simplex(on) == pytest.approx(on)
    off = debiasing.project_to_simplex(np.array([1.2, -0.1, -0.1]))
    assert off == pytest.approx([1.0, 0.0, 0.0])


def test_a_mean_score_of_direct_answers_is_the_scores_mean():
    q = {"report": {"encoding": "index"}, "scores": ["1", "2", "3"]}
    pi_hat = np.array([0.5, 0.25, 0.25])
    mean, std_error, low, high = debiasing.mean_score(q, pi_hat, 40, 1.0, 0.0, 0.95)
    assert mean == pytest.approx(1.75)
    spread = 0.5 * 0.75 ** 2 + 0.25 * 0.25 ** 2 + 0.25 * 1.25 ** 2  # the scores' variance
    assert std_error == pytest.approx(math.sqrt(spread / 39))
    assert low < mean < high


def test_a_mean_score_leaves_an_unscored_level_out():
    q = {"report": {"encoding": "index"}, "scores": ["1", "3", None]}
    mean = debiasing.mean_score(q, np.array([0.25, 0.25, 0.5]), 40, 1.0, 0.0, 0.95)[0]
    assert mean == pytest.approx(2.0)

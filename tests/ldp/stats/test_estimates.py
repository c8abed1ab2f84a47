"""ldp.stats.estimates: debiasing, standard errors, mapped intervals, post-processing, validation."""

from __future__ import annotations

import itertools
import json
import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import optimize

import ldp
from ldp.stats.estimates import Estimate, debias, project_to_simplex
from tests.ldp.support import clopper_pearson_by_scipy, wilson_cc_by_root_finding

P, Q = 0.7, 0.2  # a generic channel: gap 0.5


def independent_estimate(counts, n, p, q, confidence, reference):
    """Everything debias() reports, from the design's formulas and an independent interval."""
    lam = np.asarray(counts) / n
    est = (lam - q) / (p - q)
    se = np.sqrt(lam * (1 - lam) / n) / (p - q)
    # At a count of 0 or n the plug-in error is 0: the Wilson-centred one instead (issue 14, item 5).
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    centre = (np.asarray(counts) + z * z / 2) / (n + z * z)
    edge = (np.asarray(counts) == 0) | (np.asarray(counts) == n)
    se = np.where(edge, np.sqrt(centre * (1 - centre) / (n + z * z)) / (p - q), se)
    bounds = np.array([reference(int(c), n, confidence) for c in counts])
    low = np.clip((bounds[:, 0] - q) / (p - q), 0, 1)
    high = np.clip((bounds[:, 1] - q) / (p - q), 0, 1)
    return est, se, low, high


@pytest.mark.parametrize("interval, reference", [("wilson", wilson_cc_by_root_finding),
                                                 ("exact", clopper_pearson_by_scipy)])
@pytest.mark.parametrize("counts, n, p, q", [
    ([30, 70], 100, 0.75, 0.25),
    ([0, 12, 3, 85], 100, P, Q),
    ([5, 0, 50], 50, 0.5, 1 / (math.e + 1)),
    ([400, 333, 267], 1000, math.e / (math.e + 2), 1 / (math.e + 2)),
])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_debias_reports_the_formula_estimate_error_and_mapped_interval(counts, n, p, q, interval,
                                                                       reference, confidence):
    got = debias(counts, n, p, q, confidence=confidence, interval=interval)
    est, se, low, high = independent_estimate(counts, n, p, q, confidence, reference)
    np.testing.assert_allclose(got.estimate, est, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.std_error, se, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got.ci_low, low, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(got.ci_high, high, rtol=1e-8, atol=1e-10)
    assert got.counts == tuple(counts) and got.n == n
    assert (got.confidence, got.interval, got.simultaneous) == (confidence, interval, False)


def test_the_default_interval_is_continuity_corrected_wilson_at_95_percent():
    got = debias([37, 63], 100, P, Q)
    _, _, low, high = independent_estimate([37, 63], 100, P, Q, 0.95, wilson_cc_by_root_finding)
    np.testing.assert_allclose(got.ci_low, low, atol=1e-10)
    np.testing.assert_allclose(got.ci_high, high, atol=1e-10)
    assert (got.confidence, got.interval) == (0.95, "wilson")


@pytest.mark.parametrize("interval", ["wilson", "exact"])
def test_simultaneous_intervals_are_bonferroni_and_wider(interval):
    counts, n, k = [12, 40, 3, 25, 20], 100, 5
    marginal = debias(counts, n, P, Q, interval=interval)
    joint = debias(counts, n, P, Q, interval=interval, simultaneous=True)
    bonferroni = debias(counts, n, P, Q, interval=interval, confidence=1 - 0.05 / k)
    assert joint.simultaneous
    np.testing.assert_allclose(joint.ci_low, bonferroni.ci_low, rtol=1e-12)
    np.testing.assert_allclose(joint.ci_high, bonferroni.ci_high, rtol=1e-12)
    for j in range(k):
        assert joint.ci_low[j] <= marginal.ci_low[j] and joint.ci_high[j] >= marginal.ci_high[j]
        unclipped = 0 < marginal.ci_low[j] and marginal.ci_high[j] < 1
        if unclipped:
            assert joint.ci_high[j] - joint.ci_low[j] > marginal.ci_high[j] - marginal.ci_low[j]
    assert joint.estimate == marginal.estimate


@pytest.mark.slow
@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(data=st.data())
def test_post_processed_estimates_are_clipped_and_on_the_simplex(data):
    k = data.draw(st.integers(2, 8))
    n = data.draw(st.integers(1, 5000))
    counts = data.draw(st.lists(st.integers(0, n), min_size=k, max_size=k))
    got = debias(counts, n, P, Q)
    est = np.array(got.estimate)
    clipped, simplex = np.array(got.clipped), np.array(got.simplex)
    assert ((0 <= clipped) & (clipped <= 1)).all()
    np.testing.assert_array_equal(clipped, np.clip(est, 0, 1))
    assert (simplex >= 0).all()
    assert simplex.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(simplex, brute_force_projection(est), atol=1e-9)
    assert all(0.0 <= low <= high <= 1.0 for low, high in zip(got.ci_low, got.ci_high, strict=True))


@pytest.mark.parametrize("k", [2, 3, 10])
@pytest.mark.parametrize("interval", ["wilson", "exact"])
def test_no_reports_give_nan_estimates_and_the_whole_unit_interval(k, interval):
    got = debias([0] * k, 0, P, Q, interval=interval)
    assert got.n == 0
    assert all(math.isnan(v) for v in got.estimate + got.std_error + got.clipped + got.simplex)
    assert got.ci_low == (0.0,) * k and got.ci_high == (1.0,) * k


@pytest.mark.parametrize("m", [ldp.BitFlip(1.0), ldp.QRandomizedResponse("0.5"), ldp.KaryRR(1.0, 4),
                               ldp.SymmetricUnary(1.0, 4), ldp.OptimizedUnary(1.0, 4)],
                         ids=lambda m: m.name)
def test_every_mechanism_estimates_nan_without_crashing_when_nobody_answered(m):
    got = m.estimate(np.zeros(m.k, dtype=int), 0)
    assert len(got.estimate) == m.k and all(math.isnan(v) for v in got.estimate)


def test_estimate_serializes_to_json():
    got = debias([10, 20, 70], 100, P, Q, simultaneous=True)
    data = json.loads(json.dumps(got.to_dict()))
    assert data["estimate"] == list(got.estimate)
    assert data["counts"] == [10, 20, 70] and data["n"] == 100
    assert set(data) == {f.name for f in Estimate.__dataclass_fields__.values()}


@pytest.mark.parametrize("counts, n, word", [
    ([3, 11], 10, "between 0 and n"),
    ([-1, 5], 10, "between 0 and n"),
    ([1, 1], 0, "between 0 and n"),
    ([3], 10, "counts"),
    ([[1, 2], [3, 4]], 10, "counts"),
    ([1, 2], -1, "n must"),
    ([1, 2], 10.0, "n must"),
    ([1, 2], True, "n must"),
    ([1, 2], "10", "n must"),
])
def test_debias_rejects_bad_counts_and_n(counts, n, word):
    with pytest.raises(ValueError, match=word):
        debias(counts, n, P, Q)


@pytest.mark.parametrize("counts", [[3.7, 6.3], [2.5, 7.5]])
def test_debias_rejects_non_integer_counts(counts):
    with pytest.raises((ValueError, TypeError), match="count"):
        ldp.KaryRR(1.0, 2).estimate(counts, 10)


@pytest.mark.parametrize("confidence", [1.0, 0.3, 95, "0.95", True])
def test_debias_rejects_bad_confidence(confidence):
    with pytest.raises(ValueError, match="confidence"):
        debias([1, 2], 10, P, Q, confidence=confidence)


@pytest.mark.parametrize("interval", ["wald", "Wilson", "", None])
def test_debias_rejects_unknown_interval(interval):
    with pytest.raises(ValueError, match="interval"):
        debias([1, 2], 10, P, Q, interval=interval)


# --- projection onto the simplex ---------------------------------------------------------


def brute_force_projection(v) -> np.ndarray:
    """Closest point of the simplex, by trying every face: on support S the projection of v
    onto {x_S sums to 1} is v_S - (sum v_S - 1) / |S|; keep the feasible one nearest v."""
    v = np.asarray(v, dtype=float)
    best, best_distance = None, math.inf
    for size in range(1, v.size + 1):
        for support in itertools.combinations(range(v.size), size):
            x = np.zeros_like(v)
            idx = list(support)
            x[idx] = v[idx] - (v[idx].sum() - 1.0) / size
            if (x >= -1e-12).all():
                distance = float(((x - v) ** 2).sum())
                if distance < best_distance:
                    best, best_distance = np.maximum(x, 0.0), distance
    return best


vectors = hnp.arrays(np.float64, st.integers(1, 7),
                     elements=st.floats(-3, 3, allow_nan=False, allow_subnormal=False))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(v=vectors)
def test_simplex_projection_is_the_euclidean_projection(v):
    x = project_to_simplex(v)
    assert x.shape == v.shape
    assert (x >= 0).all()
    assert x.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(x, brute_force_projection(v), atol=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_simplex_projection_agrees_with_a_numerical_optimizer(seed):
    v = np.random.default_rng(seed).normal(0.2, 0.8, size=5)
    result = optimize.minimize(
        lambda x: ((x - v) ** 2).sum(), np.full(5, 0.2), jac=lambda x: 2 * (x - v), method="SLSQP",
        bounds=[(0, 1)] * 5, constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert result.success
    np.testing.assert_allclose(project_to_simplex(v), result.x, atol=1e-6)


@settings(max_examples=100, deadline=None, database=None, derandomize=True)
@given(k=st.integers(1, 10), seed=st.integers(0, 2**32 - 1))
def test_simplex_projection_leaves_points_of_the_simplex_alone(k, seed):
    point = np.random.default_rng(seed).dirichlet(np.full(k, 0.7))
    np.testing.assert_allclose(project_to_simplex(point), point, atol=1e-12)
    vertex = np.eye(k)[seed % k]
    np.testing.assert_array_equal(project_to_simplex(vertex), vertex)


# --- the mapped interval is clipped to [0, 1], each end on its own -----------------------------

# (mechanism, counts out of 100 reports): report rates just below p and just above q, so one
# end of an option's interval maps beyond [0, 1] while its other end stays inside.
CLIPPED_ENDS = [
    (ldp.QRandomizedResponse("0.5"), [72, 28]),  # p = 3/4, q = 1/4
    (ldp.KaryRR(1.0, 3), [55, 23, 22]),
    (ldp.OptimizedUnary(1.0, 3), [48, 31, 22]),  # p = 1/2, q ~ 0.269, one count per bit
]
# The references solve for each bound to ~1e-14 (root finding and scipy's beta quantile); ldp's
# closed form and bisection agree to ~1e-12 on the report rate, times 1 / (p - q) < 4 here.
MAPPED_TOLERANCE = 1e-10


def mapped_reference_bounds(mechanism, counts, n, interval, simultaneous, confidence=0.95):
    """Each option's interval mapped through (lambda - q) / (p - q) from an independent interval
    for its report rate, not clipped."""
    reference = {"wilson": wilson_cc_by_root_finding, "exact": clopper_pearson_by_scipy}[interval]
    level = 1 - (1 - confidence) / len(counts) if simultaneous else confidence
    gap = mechanism.p - mechanism.q_other
    return [tuple((bound - mechanism.q_other) / gap for bound in reference(c, n, level)) for c in counts]


def clipped_cases():
    for (mechanism, counts), interval, simultaneous in itertools.product(
            CLIPPED_ENDS, ["wilson", "exact"], [False, True]):
        yield pytest.param(mechanism, counts, interval, simultaneous,
                           id=f"{mechanism.name}-{interval}{'-simultaneous' if simultaneous else ''}")


@pytest.mark.parametrize("mechanism, counts, interval, simultaneous", clipped_cases())
def test_an_interval_end_mapped_above_one_is_exactly_one(mechanism, counts, interval, simultaneous):
    got = mechanism.estimate(counts, 100, interval=interval, simultaneous=simultaneous)
    reference = mapped_reference_bounds(mechanism, counts, 100, interval, simultaneous)
    above = [j for j, (_, high) in enumerate(reference) if high > 1 + MAPPED_TOLERANCE]
    assert above, "the data must map some upper end above 1"
    for j in above:
        assert got.ci_high[j] == 1.0
        low = reference[j][0]
        assert 0 < low < 1 and got.ci_low[j] == pytest.approx(low, abs=MAPPED_TOLERANCE)


@pytest.mark.parametrize("mechanism, counts, interval, simultaneous", clipped_cases())
def test_an_interval_end_mapped_below_zero_is_exactly_zero(mechanism, counts, interval, simultaneous):
    got = mechanism.estimate(counts, 100, interval=interval, simultaneous=simultaneous)
    reference = mapped_reference_bounds(mechanism, counts, 100, interval, simultaneous)
    below = [j for j, (low, _) in enumerate(reference) if low < -MAPPED_TOLERANCE]
    assert below, "the data must map some lower end below 0"
    for j in below:
        assert got.ci_low[j] == 0.0
        high = reference[j][1]
        assert 0 < high < 1 and got.ci_high[j] == pytest.approx(high, abs=MAPPED_TOLERANCE)

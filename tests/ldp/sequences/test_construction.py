"""The confidence sequences' construction (`ldp.sequences.fractions`, `ldp.sequences.means`, `ldp.sequences.stream`):
the
interval is the set the martingale accepts, mapped like the fixed-n one, and its width against the references.

Expectations come from scipy (betaln, gammaln), the closed forms, or the reference numbers of issue 27 on the
public q-RR data set (q = 2/3, n = 2,435, 831 reported yes; nprr 0.1.4).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

import ldp
from ldp.sequences.fractions import (
    anytime_respondents_needed,
    binary_sequence,
    fraction_sequence,
    lgamma,
    mixture_strength,
)
from ldp.sequences.means import laplace_sequence, mixture, onebit_sequence
from ldp.sequences.stream import check_looks, stream_sequence

QRR = ldp.QRandomizedResponse("0.6666666667")  # q = 2/3 to 10 digits, as a researcher types it
N, YES = 2435, 831


def test_lgamma_matches_scipy_from_tiny_to_huge_arguments():
    x = np.concatenate([np.logspace(-300, 0, 400), np.linspace(0.01, 20, 2000), np.logspace(1, 9, 400)])
    assert np.max(np.abs(lgamma(x) - special.gammaln(x)) / np.maximum(1.0, np.abs(special.gammaln(x)))) < 1e-11


def _accepted(successes, trials, alpha, planned, grid):
    """The grid points whose beta-binomial mixture stays below 1 / alpha, with scipy's betaln."""
    s = mixture_strength(planned, alpha)
    a, b = s * grid, s * (1 - grid)
    log_m = (special.betaln(a + successes, b + trials - successes) - special.betaln(a, b)
             - successes * np.log(grid) - (trials - successes) * np.log1p(-grid))
    return grid[log_m < math.log(1 / alpha)]


@pytest.mark.parametrize("successes, trials", [(0, 1), (1, 1), (1, 5), (3, 10), (0, 50), (50, 50), (2, 100),
                                               (831, 2435), (9_990, 10_000), (34_000, 100_000)])
@pytest.mark.parametrize("planned, alpha", [(10, 0.05), (2435, 0.05), (100_000, 0.01)])
def test_the_interval_is_the_set_of_rates_the_mixture_accepts(successes, trials, planned, alpha):
    grid = np.linspace(1e-7, 1 - 1e-7, 100_001)
    accepted = _accepted(successes, trials, alpha, planned, grid)
    low, high = binary_sequence([successes], [trials], alpha, planned)
    spacing = grid[1] - grid[0]
    # every accepted rate lies inside (never narrower), and the ends are the accepted set's, to the grid
    assert low[0] <= accepted.min() < low[0] + spacing or (low[0] == 0 and accepted.min() < 2 * spacing)
    assert high[0] - spacing < accepted.max() <= high[0] or (high[0] == 1 and accepted.max() > 1 - 2 * spacing)


def test_fractions_map_through_the_debiasing_and_clip_like_the_fixed_n_interval():
    m = ldp.KaryRR(1.0, 3)
    counts = np.array([[5, 1, 0], [300, 150, 50]])
    n = counts.sum(axis=1)
    found = fraction_sequence(m, n, counts, confidence=0.9, planned=200)
    low, high = binary_sequence(counts, np.broadcast_to(n[:, None], counts.shape), 0.1 / 3, 200)
    gap = m.p - m.q_other
    assert np.array_equal(found.estimate, (counts / n[:, None] - m.q_other) / gap)
    assert np.array_equal(found.ci_low, np.clip((low - m.q_other) / gap, 0, 1))
    assert np.array_equal(found.ci_high, np.clip((high - m.q_other) / gap, 0, 1))


def test_a_yes_no_question_is_one_stream_and_its_mirror_at_the_full_alpha():
    found = fraction_sequence(QRR, [N], [[N - YES, YES]])
    low, high = binary_sequence([YES], [N], 0.05, N)
    p, q = QRR.p, QRR.q_other
    assert found.ci_low[0] == pytest.approx([(1 - high[0] - q) / (p - q), (low[0] - q) / (p - q)], rel=1e-12)
    assert found.ci_high[0] == pytest.approx([(1 - low[0] - q) / (p - q), (high[0] - q) / (p - q)], rel=1e-12)


def test_a_report_stream_gives_the_counts_at_every_look():
    m = ldp.OptimizedUnary(1.0, 3)
    reports = m.randomize(np.random.default_rng(3).integers(0, 3, 500), np.random.default_rng(4))
    found = stream_sequence(m, reports, planned=400)
    expected = fraction_sequence(m, np.arange(1, 501), np.cumsum(reports, axis=0), planned=400)
    assert found.n.tolist() == list(range(1, 501))
    for name in ("estimate", "ci_low", "ci_high"):
        assert np.array_equal(getattr(found, name), getattr(expected, name))


def test_a_mean_stream_is_the_mean_in_units():
    one = ldp.OneBitMean(1.0, "0", "10", "1")
    bits = np.array([1, 0, 1, 1, 0] * 40)
    found = stream_sequence(one, bits, looks=[50, 200])
    assert found.records() == onebit_sequence(one, [50, 200], [30, 120]).records()
    lap = ldp.DiscreteLaplace(1.0, "0", "10", "1")
    r = np.array([-3, 12, 5, 7, 400] * 20)
    assert stream_sequence(lap, r, looks=[5, 100]).records() == laplace_sequence(lap, [5, 100], [421, 8420]).records()
    assert stream_sequence(lap, r, looks=[100]).estimate[0, 0] == lap.estimate_mean(
        *lap.histogram(r)).mean


def test_looks_outside_the_stream_and_reports_outside_the_range_are_refused():
    assert check_looks(None, 3).tolist() == [1, 2, 3]
    for looks in ([0], [4], []):
        with pytest.raises(ValueError, match="each look"):
            check_looks(looks, 3)
    with pytest.raises(ValueError, match="reports must lie in"):
        stream_sequence(ldp.KaryRR(1.0, 3), [0, 3])
    with pytest.raises(ValueError, match="every look"):
        fraction_sequence(QRR, [0], [[0, 0]])


def test_the_laplace_mixture_is_a_probability_over_points_inside_the_noise_range():
    m = ldp.DiscreteLaplace(0.5, "0", "100", "1")
    eta, log_w, psi = mixture(m, 50, 0.05)
    assert math.isclose(np.exp(log_w).sum(), 1.0) and np.all(np.abs(eta) < m.scale_den / m.scale_num)
    a = m.ratio  # psi bounds the noise's cumulant generating function E exp(eta Z), summed exactly here
    z = np.arange(-20_000, 20_001)
    cgf = np.log(((1 - a) / (1 + a) * a ** np.abs(z)) @ np.exp(np.outer(z, eta)))
    assert np.all(psi >= cgf + eta**2 * 100**2 / 8 - 1e-12)  # equal but for the clamp's 2^-60 and rounding


def _nprr_hoeffding_width(n: int, r: float, alpha: float) -> float:
    """nprr 0.1.4 `nprr.dpcs.nprr_hoeffding_cs` at t = n, its width before clipping (data-free): lambda_i =
    min(1, sqrt(8 ln(2 / alpha) / (i ln(i + 1)))), half-width (ln(2 / alpha) + sum lambda_i^2 / 8) / (r sum lambda_i).
    nprr itself does not install here (its dependency confseq pins pybind11 2.6, which does not build on
    Python 3.11), so its closed form is written out and checked against the reference width."""
    i = np.arange(1, n + 1)
    lam = np.minimum(1.0, np.sqrt(8 * math.log(2 / alpha) / (i * np.log(i + 1))))
    return 2 * (math.log(2 / alpha) + np.sum(lam**2) / 8) / (r * np.sum(lam))


def test_on_the_reference_data_set_the_sequence_is_narrower_than_nprr_hoeffding_and_within_1_8_of_fixed_n():
    hoeffding = _nprr_hoeffding_width(N, 2 / 3, 0.05)
    assert hoeffding == pytest.approx(0.3348 - 0.2054, abs=2e-4)  # the reference Hoeffding CS at t = n
    fixed = QRR.estimate([N - YES, YES], N)
    assert (round(fixed.ci_low[1], 4), round(fixed.ci_high[1], 4)) == (0.2338, 0.2908)  # the reference Wilson-cc
    found = fraction_sequence(QRR, [N], [[N - YES, YES]])
    low, high = found.ci_low[0, 1], found.ci_high[0, 1]
    assert (round(low, 4), round(high, 4)) == (0.2187, 0.3062)
    width = high - low
    assert width < hoeffding and width <= 1.8 * (fixed.ci_high[1] - fixed.ci_low[1])
    assert width < 0.307 - 0.218  # and than nprr's conjugate-mixture sequence


@pytest.mark.parametrize("n", [10**3, 10**4, 10**5])
def test_the_width_ratio_to_the_fixed_n_interval_at_the_planned_size_stays_near_one_and_a_half(n):
    yes = round(n * YES / N)
    fixed = QRR.estimate([n - yes, yes], n)
    found = fraction_sequence(QRR, [n], [[n - yes, yes]])
    ratio = (found.ci_high[0, 1] - found.ci_low[0, 1]) / (fixed.ci_high[1] - fixed.ci_low[1])
    assert 1.45 < ratio < 1.6  # measured 1.52, 1.54, 1.55: sqrt((c + 1) / c (ln(c + 1) - 2 ln alpha)) / z = 1.549


def _half_width(rate: float, size: int, alpha: float, gap: float) -> float:
    low, high = binary_sequence([rate * size], [size], alpha, size)
    return float(high[0] - low[0]) / (2 * gap)


@pytest.mark.parametrize("mechanism, margin, expected", [(QRR, 0.03, None), (ldp.KaryRR(2.0, 4), 0.05, 0.1),
                                                         (ldp.OptimizedUnary(1.0, 5), 0.04, None)])
def test_the_planner_gives_the_smallest_n_whose_sequence_meets_the_margin(mechanism, margin, expected):
    n = anytime_respondents_needed(mechanism, margin, expected=expected)
    gap = mechanism.p - mechanism.q_other
    rate = 0.5 if expected is None else mechanism.q_other + expected * gap
    alpha = 0.05 / (1 if mechanism.k == 2 else mechanism.k)
    assert _half_width(rate, n, alpha, gap) <= margin < _half_width(rate, n - 1, alpha, gap)
    assert n > ldp.respondents_needed(mechanism, margin, expected=expected)


def test_the_planner_refuses_a_mean():
    with pytest.raises(ValueError, match="estimates a mean"):
        anytime_respondents_needed(ldp.OneBitMean(1.0, "0", "1", "1"), 0.1)

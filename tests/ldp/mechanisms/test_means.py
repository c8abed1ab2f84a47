"""A mean mechanism answers for itself: its worst-case variance, per-report values, sum of reports and sequence."""

import math

import numpy as np
import pytest

import ldp

ONEBIT = ldp.OneBitMean(math.log(3), "0", "10", "2")
LAPLACE = ldp.DiscreteLaplace(1.0, "0", "10", "2")
NUMBER = ldp.DirectNumber("0", "10", "2")


def test_each_mean_mechanism_has_its_own_worst_case_variance():
    # 1-bit mean: p = 3/4, q = 1/4, so (hi - lo)^2 / (4 (1/2)^2) = 100; Laplace adds its noise to the spread 25.
    assert ONEBIT.worst_mean_variance() == pytest.approx(100.0, rel=1e-9)
    assert LAPLACE.worst_mean_variance() == pytest.approx(25.0 + 4.0 * LAPLACE.noise_variance, rel=1e-12)
    assert NUMBER.worst_mean_variance() == 25.0


def test_per_report_values_are_unbiased_for_the_true_value():
    rng = np.random.default_rng(7)
    truth = np.full(200_000, 4)  # the grid index 4: the value 8
    for mechanism in (ONEBIT, LAPLACE, NUMBER):
        values = mechanism.report_values(mechanism.randomize(truth, rng))
        tolerance = 5 * math.sqrt(mechanism.worst_mean_variance() / truth.size)
        assert abs(values.mean() - 8.0) < tolerance, mechanism.name


def test_the_sum_of_reports_is_read_from_the_stored_values():
    reports = LAPLACE.randomize(np.arange(6), np.random.default_rng(3))
    assert LAPLACE.report_sum(*LAPLACE.histogram(reports)) == float(reports.sum())
    assert ONEBIT.report_sum([0, 1], [7, 5]) == 5.0
    assert NUMBER.report_sum([1, 3], [2, 1]) == 5.0


def test_only_the_randomized_means_have_a_sequence():
    assert ONEBIT.has_mean_sequence and LAPLACE.has_mean_sequence and not NUMBER.has_mean_sequence
    with pytest.raises(ValueError, match="no confidence sequence"):
        NUMBER.mean_sequence([10], [20])
    found = LAPLACE.mean_sequence([100], [250.0])
    assert found.ci_low[0, 0] < 5.0 < found.ci_high[0, 0]  # 0 + 2 * 250 / 100


def test_a_report_range_is_what_the_mechanism_sends():
    assert LAPLACE.report_range() == (-LAPLACE.bound, 5 + LAPLACE.bound)
    assert ONEBIT.report_range() == (0, 1)
    assert ldp.SymmetricUnary(1.0, 4).report_range() == (0, 1)
    assert ldp.KaryRR(1.0, 4).report_range() == (0, 3)

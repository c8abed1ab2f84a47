"""The analysis script's tails (surveys.aggregation.scripts.python.tails), in the standard library alone: each
against scipy's."""

import numpy as np
import pytest
from scipy import special, stats

from surveys.aggregation.scripts.python import tails


@pytest.mark.parametrize(("t", "a", "b"), [(0.3, 2.0, 5.0), (0.9, 0.5, 0.5), (0.01, 30.0, 2.0), (0.5, 200.0, 180.0)])
def test_regularized_beta_is_the_incomplete_beta_ratio(t, a, b):
    assert tails.regularized_beta(t, a, b) == pytest.approx(special.betainc(a, b, t), abs=1e-13)


def test_beta_quantile_inverts_the_regularized_beta():
    assert tails.beta_quantile(0.025, 4.0, 7.0) == pytest.approx(stats.beta.ppf(0.025, 4.0, 7.0), abs=1e-12)


@pytest.mark.parametrize(("x", "df"), [(0.5, 1), (3.84, 1), (12.0, 6), (40.0, 20), (0.01, 3)])
def test_chi2_sf_is_the_chi_square_upper_tail(x, df):
    assert tails.chi2_sf(x, df) == pytest.approx(stats.chi2.sf(x, df), rel=1e-9)


def test_f_sf_is_the_f_upper_tail_and_one_at_zero():
    assert tails.f_sf(2.5, 3.0, 40.0) == pytest.approx(stats.f.sf(2.5, 3.0, 40.0), rel=1e-9)
    assert tails.f_sf(0.0, 3.0, 40.0) == 1.0


def test_two_sided_p_values_from_normal_and_student_t():
    z = np.array([0.0, 1.96, -2.5])
    assert tails.two_sided(z) == pytest.approx(2 * stats.norm.sf(np.abs(z)), rel=1e-12)
    assert tails.t_two_sided(z, 12) == pytest.approx(2 * stats.t.sf(np.abs(z), 12), rel=1e-9)

"""The statement's disclosure figures as the app asks ldp.disclosure for them: the prior from estimated shares,
and the shuffled release's central epsilon (the delta given; above NUMERIC_N still an upper bound)."""

from fractions import Fraction

import pytest

from ldp import disclosure as ldp_disclosure
from surveys.aggregation.privacy import disclosure
from surveys.collection import plan


@pytest.mark.parametrize("epsilon0, n, delta", [(1.0, 1000, 1e-8), (2.0, 500, 1e-6), (0.5, 3000, 1e-9)])
def test_the_central_epsilon_is_the_numerical_bound_at_the_delta_given(db, epsilon0, n, delta):
    assert disclosure.central_epsilon(epsilon0, n, delta) == ldp_disclosure.epsilon_c(epsilon0, n, delta)


def test_above_its_numeric_n_it_stays_an_upper_bound_no_looser_than_at_that_n(db):
    n, delta = 2 * disclosure.NUMERIC_N, disclosure.delta(2 * disclosure.NUMERIC_N)
    found = disclosure.central_epsilon(1.1, n, delta)
    assert ldp_disclosure.epsilon_c(1.1, n, delta) <= found <= ldp_disclosure.epsilon_c(1.1, disclosure.NUMERIC_N,
                                                                                         delta)


def test_one_respondent_hides_among_nobody(db):
    assert disclosure.central_epsilon(1.0, 1, 1e-6) is None


def test_the_stated_delta_is_the_smaller_of_one_over_n_to_the_1_1_and_a_millionth():
    assert [disclosure.delta(n) for n in (100, 10**7)] == [1e-6, pytest.approx(10**-7.7)]


def test_the_prior_takes_the_estimated_shares_negative_ones_as_zero_rescaled(survey):
    drugs = plan.of(survey).questions[2]  # k-RR over 3 options
    assert disclosure.prior(drugs, [0.6, -0.1, 0.6]) == [Fraction(1, 2), 0, Fraction(1, 2)]
    assert disclosure.prior(drugs, None) == [Fraction(1, 3)] * 3


def test_epsilon_is_written_rounded_up():
    assert [str(disclosure.epsilon_text(x)) for x in (0.12341, 0.1234, 0.00001, 2.5)] == [
        "0.1235", "0.1234", "0.0001", "2.5000"]

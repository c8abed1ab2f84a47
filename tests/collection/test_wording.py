"""The respondent page's numbers in words: "about n in m" and "at most N to 1"."""

import doctest
import math
from decimal import Decimal
from fractions import Fraction

import pytest

import ldp
from surveys.collection import wording


def test_the_examples_in_the_docstrings():
    assert doctest.testmod(wording).failed == 0


@pytest.mark.parametrize("probability", [0.0001, 0.01, 0.1, 0.2689, 1 / 3, 0.4754, 0.5, 0.5761, 0.75, 0.9, 0.99995])
def test_about_is_never_none_or_certain_and_close(probability):
    n, m = wording.about(probability)
    assert 1 <= n < m
    assert abs(n / m - probability) <= max(min(probability, 1 - probability) / 10, 1 / 10000)


@pytest.mark.parametrize("probability", [0, 1, -0.1, 1.5])
def test_about_refuses_what_is_not_a_chance(probability):
    with pytest.raises(ValueError):
        wording.about(probability)


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 1.1, math.log(3), 1.3, 2.0, 5.0, 10.0])
@pytest.mark.parametrize("name", ["bitflip", "krr", "oue", "multiselect", "onebit", "dlaplace"])
def test_the_odds_are_never_understated_and_at_most_a_hundredth_over(name, epsilon):
    grid = {"lo": "0", "hi": "10", "step": "1"}
    extra = grid if name in ("onebit", "dlaplace") else {"k": 2 if name == "bitflip" else 3}
    mechanism = ldp.make(name, epsilon=epsilon, **extra)
    shown = wording.odds_at_most(mechanism.sampler())
    true = Fraction(ldp.planning.rounding.loss_of(mechanism.sampler()).odds_upper())
    assert true <= Fraction(shown) < true + Fraction(1, 100)
    assert shown.as_tuple().exponent == -2


def test_the_odds_of_epsilon_1_1_are_shown_as_3_01_not_3_00():
    assert str(wording.odds_at_most(ldp.BitFlip(1.1).sampler())) == "3.01"  # e^1.1 = 3.0042


def test_a_mechanism_is_worded_from_its_own_description():
    said = wording.for_mechanism(ldp.make("oue", k=4, epsilon=1.0).describe())
    assert said.unary and (said.true.n, said.true.m) == (1, 2) and (said.other.n, said.other.m) == (1, 4)
    said = wording.for_mechanism(ldp.QRandomizedResponse("0.5").describe())
    assert not said.unary and (said.true.n, said.true.m) == (3, 4) and said.odds == Decimal("3.00")

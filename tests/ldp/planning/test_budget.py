"""ldp.planning.budget: sequential composition, the budget check and the respondent's explanation."""

from __future__ import annotations

import math

import pytest

import ldp

LN3 = math.log(3.0)


def survey():
    return [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(0.7), ldp.KaryRR(1.2, 4), ldp.OptimizedUnary(0.9, 6),
            ldp.SymmetricUnary(2.0, 3)]


def test_survey_epsilon_is_the_sum_of_the_effective_epsilons():
    mechanisms = survey()
    expected = sum(m.effective_epsilon for m in mechanisms)
    assert ldp.survey_epsilon(mechanisms) == pytest.approx(expected, rel=1e-15)
    # ... which is at most the configured total (ln 3 + 0.7 + 1.2 + 0.9 + 2.0).
    assert ldp.survey_epsilon(mechanisms) <= LN3 + 0.7 + 1.2 + 0.9 + 2.0
    assert ldp.survey_epsilon(iter(mechanisms)) == ldp.survey_epsilon(mechanisms)
    assert ldp.survey_epsilon([]) == 0.0


def test_check_budget_returns_the_total_within_budget():
    mechanisms = survey()
    total = sum(m.effective_epsilon for m in mechanisms)
    assert ldp.check_budget(mechanisms, 6.0) == pytest.approx(total, rel=1e-15)
    # A budget equal to the configured epsilons always suffices: rounding only lowers epsilon.
    assert ldp.check_budget(mechanisms, LN3 + 0.7 + 1.2 + 0.9 + 2.0) == pytest.approx(total)
    assert ldp.check_budget([ldp.BitFlip(1.0)], 1.0) <= 1.0


def test_check_budget_refuses_a_survey_over_budget():
    mechanisms = survey()
    total = sum(m.effective_epsilon for m in mechanisms)
    with pytest.raises(ldp.BudgetExceeded, match="budget") as raised:
        ldp.check_budget(mechanisms, total - 0.01)
    assert isinstance(raised.value, ValueError)
    assert f"{total:.4f}" in str(raised.value)


@pytest.mark.parametrize("budget", [0, -1.0, True, "5", None, math.nan])
def test_check_budget_rejects_a_budget_that_is_not_a_positive_number(budget):
    with pytest.raises(ValueError, match="budget"):
        ldp.check_budget(survey(), budget)


def test_best_guess_at_ln3_is_three_quarters_and_the_odds_factor_is_three():
    assert ldp.best_guess(LN3) == pytest.approx(0.75, rel=1e-15)
    assert ldp.odds_factor(LN3) == pytest.approx(3.0, rel=1e-15)


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 2.0, 10.0])
def test_best_guess_is_the_membership_inference_bound(epsilon):
    e = math.exp(epsilon)
    assert ldp.best_guess(epsilon) == pytest.approx(e / (1 + e), rel=1e-14)
    assert ldp.odds_factor(epsilon) == pytest.approx(e, rel=1e-14)


@pytest.mark.parametrize("m", [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(2.0), ldp.KaryRR(0.3, 10),
                               ldp.OptimizedUnary(4.0, 5)], ids=lambda m: m.name)
def test_deniability_tells_the_respondent_the_numbers(m):
    info = ldp.deniability(m)
    e = math.exp(m.effective_epsilon)
    assert info["epsilon"] == m.effective_epsilon
    assert info["odds"] == pytest.approx(e, rel=1e-14)
    assert info["best_guess"] == pytest.approx(e / (1 + e), rel=1e-14)
    text = info["text"]
    assert f"{math.ceil(e * 100 - 1e-9) / 100:.2f} times" in text  # rounded up, never to nearest
    assert f"{math.ceil(100 * e / (1 + e) - 1e-9)}%" in text


def test_deniability_rounds_the_odds_and_the_guess_up_never_to_nearest():
    text = ldp.deniability(ldp.BitFlip(1.1))["text"]  # e^1.1 = 3.0042, its guess 75.03%
    assert "at most 3.01 times" in text and "at most 76% of the time" in text


def test_deniability_at_ln3_says_three_times_and_75_percent():
    text = ldp.deniability(ldp.QRandomizedResponse("0.5"))["text"]
    assert "3.00 times" in text and "75%" in text

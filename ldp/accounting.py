"""Privacy accounting and the plain-language explanation shown to respondents.

Sequential composition: one respondent's answers to a survey cost the sum of the
effective epsilons of its questions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .mechanisms import Mechanism


class BudgetExceeded(ValueError):
    """The survey's questions together cost more epsilon than its budget allows."""


def survey_epsilon(mechanisms: Iterable[Mechanism]) -> float:
    """epsilon_survey = sum_i epsilon_i (sequential composition)."""
    return math.fsum(m.effective_epsilon for m in mechanisms)


def check_budget(mechanisms: Iterable[Mechanism], budget: float) -> float:
    """Return the survey epsilon, or raise BudgetExceeded if it is above `budget`."""
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
        raise ValueError("budget must be a positive number")
    total = survey_epsilon(mechanisms)
    if total > budget:
        raise BudgetExceeded(f"the questions cost epsilon {total:.4f}, over the budget {budget:g}")
    return total


def odds_factor(epsilon: float) -> float:
    """Seeing a report multiplies anyone's odds of answer A over B by at most e^eps."""
    return math.exp(epsilon)


def best_guess(epsilon: float) -> float:
    """With two equally likely answers, a guess from the report is right w.p. <= e^eps / (1 + e^eps)."""
    return 1.0 / (1.0 + math.exp(-epsilon))


def deniability(mechanism: Mechanism) -> dict[str, Any]:
    """What a respondent is told about one question, in numbers and in words."""
    eps = mechanism.effective_epsilon
    odds = odds_factor(eps)
    guess = best_guess(eps)
    return {
        "epsilon": eps,
        "odds": odds,
        "best_guess": guess,
        "text": (
            f"Seeing what your browser sends changes anyone's odds between two answers by at "
            f"most {odds:.2f} times; if both were equally likely beforehand, a guess of your "
            f"answer from it is right at most {guess:.0%} of the time."
        ),
    }

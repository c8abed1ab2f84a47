"""Privacy accounting and the plain-language explanation shown to respondents.

Sequential composition: one respondent's answers to a survey cost the sum of the
effective epsilons of its randomized questions. Direct questions (`Direct`, sent as given,
epsilon infinite) are skipped, not refused: they are outside the randomized budget, which keeps
its meaning because local differential privacy protects each randomized answer whatever else is
known about the respondent, direct answers included. A survey's own page must say which answers
are sent as given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..mechanisms.registry import Mechanism
from .rounding import loss_of


class BudgetExceeded(ValueError):
    """The survey's questions together cost more epsilon than its budget allows."""


def survey_epsilon(mechanisms: Iterable[Mechanism]) -> float:
    """epsilon_survey = sum_i epsilon_i over the randomized questions (sequential composition).

    >>> from ldp import BitFlip, Direct
    >>> survey_epsilon([BitFlip(1.0), Direct(4)]) == BitFlip(1.0).effective_epsilon
    True
    """
    return math.fsum(m.effective_epsilon for m in mechanisms if m.randomized)


def check_budget(mechanisms: Iterable[Mechanism], budget: float) -> float:
    """Return the survey epsilon (randomized questions only), or raise BudgetExceeded if it is above `budget`."""
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
    """What a respondent is told about one question, in numbers and in words.

    A direct question has epsilon, odds infinite and best guess 1, and says so.
    """
    eps = mechanism.effective_epsilon
    if not mechanism.randomized:
        return {"epsilon": eps, "odds": math.inf, "best_guess": 1.0,
                "text": "Your answer to this question is sent as given: it is not randomized."}
    loss = loss_of(mechanism.sampler())  # the text rounds up from the integers, never to nearest
    return {
        "epsilon": eps,
        "odds": odds_factor(eps),
        "best_guess": best_guess(eps),
        "text": (
            f"Seeing what your browser sends changes anyone's odds between two answers by at "
            f"most {loss.odds_up(2)} times; if both were equally likely beforehand, a guess of your "
            f"answer from it is right at most {loss.guess_up(0)}% of the time."
        ),
    }

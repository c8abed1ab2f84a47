"""Local differential privacy mechanisms, estimates, accounting and planning.

Pure Python and numpy; this package never imports Django.
"""

from .accounting import BudgetExceeded, best_guess, check_budget, deniability, odds_factor, survey_epsilon
from .estimates import Estimate, debias, project_to_simplex
from .mechanisms import (
    EPSILON_MAX,
    EPSILON_MIN,
    K_MAX,
    MECHANISMS,
    YES_NO,
    BitFlip,
    KaryRR,
    Mechanism,
    OptimizedUnary,
    QRandomizedResponse,
    ReportError,
    SymmetricUnary,
    epsilon_from_q,
    from_dict,
    make,
    q_from_epsilon,
)
from .planning import advise, margin_at, respondents_needed

__all__ = [
    "BitFlip", "BudgetExceeded", "EPSILON_MAX", "EPSILON_MIN", "Estimate", "KaryRR", "K_MAX",
    "MECHANISMS", "Mechanism", "OptimizedUnary", "QRandomizedResponse", "ReportError", "SymmetricUnary",
    "YES_NO", "advise", "best_guess", "check_budget", "debias", "deniability", "epsilon_from_q",
    "from_dict", "make", "margin_at", "odds_factor", "project_to_simplex", "q_from_epsilon",
    "respondents_needed", "survey_epsilon",
]

"""What the stored reports disclose: the best guess an attacker holding the database can make of one
respondent's true answer (`breach`), and the central epsilon of releasing a question's reports shuffled
(`shuffle`, Feldman, McMillan & Talwar 2021).

Pure Python (fractions, math); never imports Django.
"""

from .breach import (
    Breach,
    accuracy,
    baseline,
    breach,
    breach_given,
    check_prior,
    odds_bound,
    record_breach,
    subsets_prior,
)
from .channels import answers
from .shuffle import closed_form, default_delta, epsilon_c

__all__ = [
    "Breach", "accuracy", "answers", "baseline", "breach", "breach_given", "check_prior", "closed_form",
    "default_delta", "epsilon_c", "odds_bound", "record_breach", "subsets_prior",
]

"""Local differential privacy mechanisms, estimates, accounting and planning.

Pure Python and numpy; this package never imports Django.
"""

from .disclosure import Breach, breach, breach_given, epsilon_c, record_breach, subsets_prior
from .joint.association import Independence, independence
from .joint.tables import Conditional, JointCounts, JointEstimate, estimate_conditional, estimate_joint
from .means.ordinal import mean_score
from .mechanisms.registry import (
    EPSILON_MAX,
    EPSILON_MIN,
    K_MAX,
    MECHANISMS,
    NUMERIC,
    ONE_OF_K,
    YES_NO,
    BitFlip,
    Direct,
    DirectNumber,
    DiscreteLaplace,
    KaryRR,
    Mechanism,
    MultiSelect,
    OneBitMean,
    OptimizedUnary,
    QRandomizedResponse,
    ReportError,
    Shape,
    SymmetricUnary,
    epsilon_from_q,
    from_dict,
    make,
    q_from_epsilon,
)
from .planning.budget import BudgetExceeded, best_guess, check_budget, deniability, odds_factor, survey_epsilon
from .planning.sizes import advise, joint_respondents_needed, margin_at, mean_respondents_needed, respondents_needed
from .sequences.fractions import Sequence, anytime_respondents_needed, fraction_sequence
from .sequences.stream import stream_sequence
from .stats.estimates import Estimate, MeanEstimate, debias, project_to_simplex

__all__ = [
    "BitFlip", "Breach", "BudgetExceeded", "Conditional", "Direct", "DirectNumber", "DiscreteLaplace", "EPSILON_MAX",
    "EPSILON_MIN",
    "Estimate", "Independence", "JointCounts", "JointEstimate", "KaryRR", "K_MAX", "MECHANISMS", "MeanEstimate",
    "Mechanism", "MultiSelect", "NUMERIC", "ONE_OF_K", "OneBitMean", "OptimizedUnary", "QRandomizedResponse",
    "ReportError", "Sequence", "Shape", "SymmetricUnary", "YES_NO", "advise", "anytime_respondents_needed",
    "best_guess",
    "breach", "breach_given", "check_budget", "debias", "deniability", "epsilon_c", "epsilon_from_q",
    "estimate_conditional", "estimate_joint",
    "fraction_sequence", "from_dict", "independence", "joint_respondents_needed", "make", "margin_at",
    "mean_respondents_needed", "mean_score", "odds_factor", "project_to_simplex", "q_from_epsilon",
    "record_breach", "respondents_needed", "stream_sequence", "subsets_prior", "survey_epsilon",
]

"""An interval policy: what a question's figures are, given how the results will be looked at.

Two axes meet in every question's figures: what is estimated (a question's option fractions, or a numeric
mean) and how often it is looked at (once, at a size fixed in advance, or at any time while the survey is
open). A policy takes the second as given and answers the first whole, in one call per question: its
estimate, the level each interval is at, the half-width reached and the respondents the planner asks for.
The fixed-n policy is in fixed_n.py, the confidence sequences' in anytime.py; the results service chooses one
for the whole survey and maps it over the questions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

import ldp
from surveys.collection.plan import PlannedQuestion

from .means import Histogram


@dataclass(frozen=True)
class Answer:
    """One question's figures under a policy (the fields of `QuestionResult` a policy decides)."""

    estimate: ldp.Estimate | None  # per-option fractions; None for a numeric question asked for its mean
    mean: ldp.MeanEstimate | None  # a numeric question's mean, an ordinal question's mean score
    level: float  # each interval's own level
    margin_now: float  # worst-case half-width reached with n reports; inf at n = 0 (a mean: in its units)
    margin: float  # the planner's target half-width (a mean: in its units)
    needed: int  # respondents for `margin` at `planner_level`, worst case
    interval: str  # the kind of the options' (or the numeric mean's) intervals
    planner_level: float | None = None  # the level `needed` is figured at, where it is not `level`


class Policy(Protocol):
    """Fixed-n (`fixed_n.FixedN`) or valid however often you look (`anytime.Anytime`)."""

    @property
    def planned(self) -> int | None:
        """The sequences' planning size; None at a fixed n."""

    @property
    def sequence_confidence(self) -> float | None:
        """The sequences' level; None at a fixed n."""

    def needed(self, question: PlannedQuestion) -> int:
        """Respondents for the chosen margin on this question, worst case."""

    def answer(self, question: PlannedQuestion, counts: np.ndarray, n: int, histogram: Histogram | None) -> Answer:
        """The question's figures from its counts (and, for a discrete Laplace mean, its histogram)."""

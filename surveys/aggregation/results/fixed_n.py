"""The fixed-n policy: intervals that hold at one sample size, for a closed survey or when asked for.

- Fractions: the mechanism's estimate with the interval asked for (Wilson or Clopper-Pearson); with the
  Bonferroni option each option's interval is at its share of 1 - confidence, and the planner speaks of the
  same intervals the table shows, that share included. An ordinal question's mean score comes with them.
- A numeric mean: one interval (no Bonferroni share) and a margin in its units, a fraction of its range
  (means.py).
"""

from __future__ import annotations

import numpy as np

import ldp
from surveys.collection.plan import PlannedQuestion

from ..params import ResultOptions
from . import means
from .policy import Answer, Histogram


class FixedN:
    planned = None  # no sequences
    sequence_confidence = None

    def __init__(self, options: ResultOptions) -> None:
        self.options, self.interval = options, options.fixed

    def level(self, question: PlannedQuestion) -> float:
        """Each of the question's intervals' own level: the confidence, or its Bonferroni share."""
        options = self.options
        if question.mean or not options.simultaneous:
            return options.confidence
        return 1.0 - (1.0 - options.confidence) / question.mechanism.k

    def needed(self, question: PlannedQuestion) -> int:
        options = self.options
        if question.mean:
            return means.needed(question, options.margin, options.confidence)
        return ldp.respondents_needed(question.mechanism, options.margin, self.level(question))

    def answer(self, question: PlannedQuestion, counts: np.ndarray, n: int, histogram: Histogram | None) -> Answer:
        return self.answer_for(question, n, *self.estimates(question, counts, n, histogram))

    def answer_for(self, question: PlannedQuestion, n: int, estimate: ldp.Estimate | None,
                   mean: ldp.MeanEstimate | None) -> Answer:
        """The fixed-n answer for these `estimates` from n reports (no fractions: a numeric mean)."""
        options, level = self.options, self.level(question)
        if estimate is None:
            return Answer(estimate=None, mean=mean, level=level, margin_now=means.margin_at(question, n, level),
                          margin=means.units(question, options.margin), needed=self.needed(question),
                          interval=self.interval, planner_level=level)
        return Answer(estimate=estimate, mean=mean, level=level, margin_now=ldp.margin_at(question.mechanism, n, level),
                      margin=options.margin, needed=self.needed(question), interval=self.interval)

    def estimates(self, question: PlannedQuestion, counts: np.ndarray, n: int,
                  histogram: Histogram | None) -> tuple[ldp.Estimate | None, ldp.MeanEstimate | None]:
        """The options' fractions with the fixed-n intervals asked for, and an ordinal question's mean score; or a
        numeric question's mean. The anytime policy starts from these too: the estimates and standard errors are the
        same under both, and a mean score keeps its fixed-n interval at the confidence asked for (`ldp` has no
        sequence for it)."""
        options = self.options
        if question.mean:
            return None, means.numeric_mean(question, counts, histogram, options.confidence)
        estimate = question.mechanism.estimate(counts, n, confidence=options.confidence, interval=self.interval,
                                               simultaneous=options.simultaneous)
        return estimate, means.mean_score(question, counts, n, options.confidence) if question.scores else None

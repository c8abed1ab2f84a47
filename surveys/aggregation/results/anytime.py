"""Intervals valid however often you look: `ldp`'s confidence sequences, from the counts the results
service already has, for a survey that is still open.

A fixed-n interval holds at one sample size chosen in advance; a researcher who looks at an open survey every
day needs intervals that hold at every look at once (see `ldp.sequences.fractions`). The sequence at n depends only on
the counts at n and the planning size, so no history of reports is needed. The planning size is the survey's
planned size, fixed when it opened (sequence_plan.py): never the margin asked for now, nor the reports, and the
sequence is narrowest there.

- Options of a single-choice question, bits of a multi-select or unary encoding, the 1-bit mean's bit:
  `ldp.sequences.fractions.fraction_sequence`; all of a question's intervals hold together (a union bound over its k
  streams, one for a yes/no question), so the Bonferroni option changes nothing here.
- Discrete Laplace mean: `ldp.sequences.means.laplace_sequence` from the sum of the reports.
- Where `ldp` has no sequence (an ordinal question's mean score, the cross-tab) the fixed-n interval stays,
  and the page says so.

`Anytime` is this policy for a whole survey (policy.py): it starts from the fixed-n figures (fixed_n.py) and
puts the sequences' intervals, level and margin in place of theirs.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

import ldp
from ldp.sequences.fractions import anytime_respondents_needed, at_last_look, binary_sequence, streams
from ldp.sequences.means import has_sequence as has_mean_sequence
from ldp.sequences.means import mean_at_last_look
from surveys.collection.plan import PlannedQuestion

from .. import params
from ..params import ResultOptions
from . import means
from .fixed_n import FixedN
from .policy import Answer, Histogram

__all__ = ["Anytime", "fractions", "has_mean_sequence", "level", "margin_at", "mean", "needed", "question_needed"]
_REMEMBERED = 4096  # planner answers kept per process (a few hundred bytes each)
_NEEDED: dict[tuple[object, ...], int] = {}


def level(mechanism: ldp.Mechanism, confidence: float) -> float:
    """Each of a question's intervals' own level: its share of 1 - confidence (all hold together)."""
    return 1.0 - (1.0 - confidence) / streams(mechanism)


def needed(mechanism: ldp.Mechanism, margin: float, confidence: float) -> int:
    """Respondents for a half-width of `margin` that holds at every look (worst case). A bisection over
    sequences (about a second of CPU under load), depending only on the channel, the margin and the confidence:
    remembered per process, so a dashboard pays it once per design and margin."""
    key = (type(mechanism).__name__, mechanism.encoding, mechanism.k, mechanism.p, mechanism.q_other, margin,
           confidence)
    if key not in _NEEDED:
        if len(_NEEDED) >= _REMEMBERED:
            _NEEDED.clear()
        _NEEDED[key] = anytime_respondents_needed(mechanism, margin, confidence)
    return _NEEDED[key]


def margin_at(mechanism: ldp.Mechanism, n: int, confidence: float, planned: int) -> float:
    """The worst-case half-width (report rate 1/2) of the sequence at n reports; inf at n = 0."""
    if n <= 0:
        return math.inf
    alpha = (1.0 - confidence) / streams(mechanism)
    low, high = binary_sequence([n / 2.0], [n], alpha, planned)
    return float(high[0] - low[0]) / (2.0 * (mechanism.p - mechanism.q_other))


def fractions(mechanism: ldp.Mechanism, estimate: ldp.Estimate, confidence: float, planned: int) -> ldp.Estimate:
    """A question's fixed-n estimate with the sequence's intervals at its n, at the sequence's `confidence`."""
    return replace(at_last_look(mechanism, estimate, confidence, planned), confidence=confidence)


def mean(mechanism: ldp.Mechanism, estimate: ldp.MeanEstimate, counts: np.ndarray,
         histogram: tuple[np.ndarray, np.ndarray] | None, confidence: float, planned: int) -> ldp.MeanEstimate:
    """A numeric mean's estimate with the sequence's interval at its n, from the sum of its reports as sent
    (1-bit mean: the count of 1s; discrete Laplace: the sum of r, stored as r + R)."""
    values, tally = histogram if histogram is not None else (np.arange(len(counts)), counts)  # 1-bit mean: tallies
    report_sum = mechanism.report_sum(values, tally)  # type: ignore[attr-defined]
    found = mean_at_last_look(mechanism, estimate, report_sum, confidence=confidence, planned=planned)
    return replace(found, confidence=confidence)  # the sequence's level, not the fixed-n one it started from


def question_needed(question: PlannedQuestion, margin: float, confidence: float) -> int:
    """The planner's respondents for a question whose intervals hold at every look: a numeric mean has no such
    planner in `ldp`, and takes its fixed-n one."""
    if question.mean:
        return means.needed(question, margin, confidence)
    return needed(question.mechanism, margin, confidence)


class Anytime:
    """Intervals valid however often you look, at the sequences' level `sequence_confidence` and planned size;
    the planner stays at the confidence asked for."""

    interval = params.ANYTIME

    def __init__(self, options: ResultOptions, planned: int, sequence_confidence: float) -> None:
        self.options, self.planned, self.sequence_confidence = options, planned, sequence_confidence
        self.fixed = FixedN(options)  # the estimates and standard errors are the fixed-n ones

    def needed(self, question: PlannedQuestion) -> int:
        return question_needed(question, self.options.margin, self.options.confidence)

    def answer(self, question: PlannedQuestion, counts: np.ndarray, n: int, histogram: Histogram | None) -> Answer:
        """The fixed-n estimates with the sequence's intervals, level and margin, where `ldp` has a sequence."""
        estimate, found = self.fixed.estimates(question, counts, n, histogram)
        mechanism, at, planned, options = question.mechanism, self.sequence_confidence, self.planned, self.options
        if estimate is not None:  # the options' fractions (and a mean score, which keeps its fixed-n interval)
            return Answer(estimate=fractions(mechanism, estimate, at, planned), mean=found, level=level(mechanism, at),
                          margin_now=margin_at(mechanism, n, at, planned), margin=options.margin,
                          needed=self.needed(question), interval=self.interval,
                          planner_level=level(mechanism, options.confidence))
        if found is None or not has_mean_sequence(mechanism):  # a direct number's t interval
            return self.fixed.answer_for(question, n, estimate, found)
        # A numeric mean's margin reached is the fixed-n worst case (as its planner), at the sequence's level.
        return Answer(estimate=None, mean=mean(mechanism, found, counts, histogram, at, planned), level=at,
                      margin_now=means.margin_at(question, n, at), margin=means.units(question, options.margin),
                      needed=self.needed(question), interval=self.interval, planner_level=options.confidence)

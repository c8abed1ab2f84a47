"""Intervals valid however often you look: `ldp`'s confidence sequences, from the counts the results
service already has, for a survey that is still open.

A fixed-n interval holds at one sample size chosen in advance; a researcher who looks at an open survey every
day needs intervals that hold at every look at once (see `ldp.sequences`). The sequence at n depends only on
the counts at n and the planning size, so no history of reports is needed. The planning size is the survey's
planner target (the most respondents any question needs for the chosen margin, with intervals that hold at
any time): it depends on the design and the margin, never on the reports, and the sequence is narrowest there.

- Options of a single-choice question, bits of a multi-select or unary encoding, the 1-bit mean's bit:
  `ldp.sequences.fraction_sequence`; all of a question's intervals hold together (a union bound over its k
  streams, one for a yes/no question), so the Bonferroni option changes nothing here.
- Discrete Laplace mean: `ldp.mean_sequences.laplace_sequence` from the sum of the reports.
- Where `ldp` has no sequence (an ordinal question's mean score, the cross-tab) the fixed-n interval stays,
  and the page says so.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

import ldp
from ldp.dlaplace import DiscreteLaplace
from ldp.mean_sequences import laplace_sequence, onebit_sequence
from ldp.onebit import OneBitMean
from ldp.sequences import anytime_respondents_needed, binary_sequence, streams

ANYTIME = "anytime"
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
    """`estimate` (the fixed-n one: same unbiased estimates and standard errors) with the sequence's
    intervals at its n, as `ldp.sequences.fraction_sequence` computes them, unclipped ends included."""
    if estimate.n == 0:  # no reports: the interval is everything, as the fixed-n one
        return dataclasses.replace(estimate, interval=ANYTIME, simultaneous=True)
    n, counts = estimate.n, np.asarray(estimate.counts, dtype=float)
    alpha = (1.0 - confidence) / streams(mechanism)
    if mechanism.encoding == "index" and mechanism.k == 2:  # one stream and its mirror image
        low1, high1 = binary_sequence(counts[1:], [n], alpha, planned)
        low, high = np.concatenate([1.0 - high1, low1]), np.concatenate([1.0 - low1, high1])
    else:
        low, high = binary_sequence(counts, np.full(counts.shape, n, dtype=float), alpha, planned)
    gap, q = mechanism.p - mechanism.q_other, mechanism.q_other
    raw_low, raw_high = (low - q) / gap, (high - q) / gap
    return dataclasses.replace(
        estimate, interval=ANYTIME, simultaneous=True,
        ci_low=_floats(np.clip(raw_low, 0.0, 1.0)), ci_high=_floats(np.clip(raw_high, 0.0, 1.0)),
        ci_low_unclipped=_floats(raw_low), ci_high_unclipped=_floats(raw_high),
        inconsistent=tuple(bool(b) for b in (raw_high < 0.0) | (raw_low > 1.0)))


def has_mean_sequence(mechanism: ldp.Mechanism) -> bool:
    return isinstance(mechanism, (OneBitMean, DiscreteLaplace))


def mean(mechanism: ldp.Mechanism, estimate: ldp.MeanEstimate, counts: np.ndarray,
         histogram: tuple[np.ndarray, np.ndarray] | None, confidence: float, planned: int) -> ldp.MeanEstimate:
    """A numeric mean's estimate with the sequence's interval at its n (1-bit mean: from the count of 1s;
    discrete Laplace: from the sum of the reports, stored as r + R)."""
    n = estimate.n
    if n == 0:
        return estimate
    if isinstance(mechanism, OneBitMean):
        found = onebit_sequence(mechanism, [n], [int(counts[1])], confidence=confidence, planned=planned)
    elif isinstance(mechanism, DiscreteLaplace) and histogram is not None:
        values, tally = histogram
        total = float(tally @ (values - mechanism.bound))
        found = laplace_sequence(mechanism, [n], [total], confidence=confidence, planned=planned)
    else:
        raise ValueError(f"{mechanism.name} has no confidence sequence for its mean")
    return dataclasses.replace(estimate, ci_low=float(found.ci_low[0, 0]), ci_high=float(found.ci_high[0, 0]))


def _floats(values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)

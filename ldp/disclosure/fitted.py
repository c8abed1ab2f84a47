"""The prior of an attacker who also reads each respondent's direct answers (sent as given, stored beside the
randomized reports): for each combination of direct answers, the shares of the randomized question's true answer
among that combination's respondents, fitted from the same stolen reports.

The fit, per combination c of n_c respondents: the debiased estimate pi_hat_c (the mechanism's own, per option or
bit), shrunk toward the whole population's pi_bar by the empirical-Bayes weight n_c / (n_c + m), then projected
onto the simplex (a multi-select's per-option shares clipped to [0, 1], ticked independently):

    pi_c = P(pi_bar + n_c / (n_c + m) (pi_hat_c - pi_bar)),     m = V / tau^2,

V the noise variance of one respondent's debiased report (sum over options of lambda_j (1 - lambda_j) / (p - q)^2,
lambda the population's report rates) and tau^2 the variance of the true shares between combinations, from the
analysis of variance: the respondent-weighted spread of the pi_hat_c about pi_bar less the (C - 1) V / N that
noise alone gives it (C combinations, N respondents), at least 0. James and Stein's estimator: the posterior mean
of each combination's shares when they scatter about pi_bar with variance tau^2.

Why shrink, and why it is honest. A combination of three respondents has a debiased estimate that is mostly noise
(standard error near 1 / ((p - q) sqrt(3))), and the simplex turns it into certainty about whichever answer the
noise favoured; the accuracy sum_r max_x pi(x) P(r | x) is convex in pi, so such priors inflate the figure with
noise, claiming an attacker knows what nobody can learn from the data. The thief holds exactly these reports: what
they can learn of a small combination is little more than the population's shares, and what they can learn of a
large one is its own estimate; the weight moves between the two as the data say. When the direct answers predict
nothing (tau^2 = 0) every combination gets pi_bar and the figure is the population prior's; when they predict
strongly and the combinations are large, it is the plug-in figure of each combination's own estimate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import Mechanism
from ..mechanisms.multiselect import MultiSelect
from ..stats.estimates import project_to_simplex
from . import record as enumerated
from .breach import Breach, breach_given, check_prior, odds_bound, subsets_prior
from .channels import Number, bit_channel, rows

Cells = Sequence[tuple[Sequence[int], int]]  # per combination: per-option (or per-bit) report counts, respondents
RECORD_CELLS = 200_000  # report combinations x answer combinations summed over the combinations, at most


def strength(mechanism: Mechanism, cells: Cells) -> float:
    """m, the pseudo-respondents of the population's shares in each combination's fit (module docstring):
    math.inf when the combinations' estimates scatter no more than noise makes them."""
    counts, n = _arrays(cells)
    total = int(n.sum())
    if total == 0 or len(n) < 2:
        return float("inf")
    p, q = (float(x) for x in bit_channel(mechanism))
    rates = counts.sum(axis=0) / total
    noise = float(np.sum(rates * (1 - rates))) / (p - q) ** 2  # V: one respondent's variance, summed over options
    seen = n > 0
    estimates = (counts[seen] / n[seen, None] - q) / (p - q)
    pooled = (rates - q) / (p - q)
    spread = float(np.sum(n[seen, None] * (estimates - pooled) ** 2)) / total
    between = spread - (int(seen.sum()) - 1) * noise / total
    return noise / between if between > 0 else float("inf")


def priors(mechanism: Mechanism, cells: Cells) -> list[tuple[int, list[Fraction]]]:
    """(respondents, fitted prior) per combination with respondents (module docstring); the prior ranges over what
    `answers` counts (a multi-select's subsets)."""
    counts, n = _arrays(cells)
    total = int(n.sum())
    p, q = (float(x) for x in bit_channel(mechanism))
    pooled = (counts.sum(axis=0) / max(total, 1) - q) / (p - q)
    m = strength(mechanism, cells)
    found = []
    for row, size in zip(counts, n, strict=True):
        if size == 0:
            continue
        weight = 0.0 if m == float("inf") else size / (size + m)
        shrunk = pooled + weight * ((row / size - q) / (p - q) - pooled)
        found.append((int(size), _prior(mechanism, shrunk)))
    return found


def breach(mechanism: Mechanism, cells: Cells) -> Breach:
    """The Bayes attacker's accuracy with each respondent's combination's fitted prior, averaged over respondents
    (`breach_given`), beside the best guess from the direct answers alone."""
    fitted = priors(mechanism, cells)
    total = sum(size for size, _ in fitted)
    return breach_given(mechanism, [(Fraction(size, total), prior) for size, prior in fitted])


def record(mechanisms: Sequence[Mechanism], groups: Sequence[tuple[int, Sequence[Sequence[Fraction]]]]) -> Breach:
    """The whole record guessed from all the reports and the direct answers: per combination (respondents, one
    fitted prior per question), the answers taken as independent within it; both accuracies averaged over
    respondents, exactly. ValueError past RECORD_CELLS."""
    total = sum(size for size, _ in groups)
    if not mechanisms or total == 0:
        raise ValueError("a record needs questions and respondents")
    channels = [rows(mechanism) for mechanism in mechanisms]
    cells = math.prod(len(pi) for pi in groups[0][1]) * math.prod(len(found) for found in channels)
    if cells * len(groups) > RECORD_CELLS:
        raise ValueError("too many combinations to enumerate")
    attacker: Number = Fraction(0)
    base = Fraction(0)
    for size, found in groups:
        joint = _joint(found)
        attacker += Fraction(size, total) * enumerated.accuracy(channels, joint)
        base += Fraction(size, total) * max(joint.values())
    return Breach(float(attacker), float(base), math.prod(odds_bound(mechanism) for mechanism in mechanisms))


def _joint(priors_of: Sequence[Sequence[Fraction]]) -> dict[tuple[int, ...], Fraction]:
    joint: dict[tuple[int, ...], Fraction] = {(): Fraction(1)}
    for pi in priors_of:
        joint = {cell + (x,): share * pi[x] for cell, share in joint.items() for x in range(len(pi)) if pi[x]}
    return joint


def _prior(mechanism: Mechanism, shrunk: npt.NDArray[np.float64]) -> list[Fraction]:
    if isinstance(mechanism, MultiSelect):
        return subsets_prior([Fraction(float(x)) for x in np.clip(shrunk, 0.0, 1.0)], mechanism.at_most)
    projected = project_to_simplex(shrunk)
    return list(check_prior([Fraction(float(x)) for x in projected], len(projected)))


def _arrays(cells: Cells) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    counts = np.array([list(row) for row, _ in cells], dtype=np.float64)
    n = np.array([size for _, size in cells], dtype=np.int64)
    if counts.ndim != 2 or len(n) == 0:
        raise ValueError("at least one combination, each with a count per option")
    return counts, n

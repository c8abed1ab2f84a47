"""Confidence sequences cover the truth at every look at once (`ldp.sequences.fractions`, `ldp.sequences.means`).

Seeded simulations: STREAMS independent report streams per case, each watched at LOOKS (after each of the first
10 reports, then 30 looks spaced geometrically up to 1,000 reports), and a stream counts as covered only
if every option's interval holds the true value at every look.

Tolerance: each stream is missed or not independently, so the misses are Binomial(STREAMS, m) with m <= alpha =
0.05 by Ville's inequality. The test fails when the share missed exceeds alpha + 3 sqrt(alpha (1 - alpha) /
STREAMS) = 0.0707 for 1,000 streams (standard error 0.0069): a correct sequence fails by chance less than 0.2% of
the time per case, while a sequence that misses 8% of streams (standard error 0.0086) is caught 86% of the time.
The fixed-n interval used at every look (the bug this guards against) misses 12% to 32% of these streams (measured).

About 10 s on one core (1,000 streams are what that standard error needs): 9 cases of 1,000 streams x 40 looks,
all looks of a case in one vectorized call.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.sequences.fractions import fraction_sequence
from ldp.sequences.means import laplace_sequence, onebit_sequence

ALPHA = 0.05
STREAMS = 1000
REPORTS = 1000
LOOKS = np.unique(np.concatenate([np.arange(1, 11), np.geomspace(11, REPORTS, 30).astype(np.int64)]))
LIMIT = ALPHA + 3.0 * math.sqrt(ALPHA * (1.0 - ALPHA) / STREAMS)


def _index_counts(mechanism, pi, rng):
    """(streams x looks, k) cumulative counts of each option among the first n reports, answers i.i.d. from pi."""
    answers = rng.choice(len(pi), size=STREAMS * REPORTS, p=pi)
    reports = mechanism.randomize(answers, rng)
    if mechanism.encoding == "bits":
        reports = reports.reshape(STREAMS, REPORTS, mechanism.k)
        counts = np.cumsum(reports, axis=1, dtype=np.int64)[:, LOOKS - 1, :]
    else:
        reports = reports.reshape(STREAMS, REPORTS)
        counts = np.stack([np.cumsum(reports == j, axis=1)[:, LOOKS - 1] for j in range(mechanism.k)], axis=2)
    return counts.reshape(-1, mechanism.k)


def _missed(sequence, truth) -> float:
    """The share of streams with some look where some entry's interval misses the truth."""
    low = sequence.ci_low.reshape(STREAMS, LOOKS.size, -1)
    high = sequence.ci_high.reshape(STREAMS, LOOKS.size, -1)
    covered = ((low <= truth) & (truth <= high)).all(axis=(1, 2))
    return float(1.0 - covered.mean())


def _n():
    return np.tile(LOOKS, STREAMS)


FRACTIONS = [
    ("qrr q=2/3, the data set's truth", ldp.QRandomizedResponse("0.6666666667"), [0.74, 0.26]),
    ("bitflip eps=0.5, yes near 0", ldp.BitFlip(0.5), [0.99, 0.01]),
    ("qrr q=0.9, yes near 1", ldp.QRandomizedResponse("0.9"), [0.004, 0.996]),
    ("krr k=3 eps=1, one option near 1", ldp.KaryRR(1.0, 3), [0.97, 0.02, 0.01]),
    ("oue k=4 eps=2, one option at 0", ldp.OptimizedUnary(2.0, 4), [0.6, 0.3, 0.1, 0.0]),
    ("sue k=3 eps=4", ldp.SymmetricUnary(4.0, 3), [0.2, 0.3, 0.5]),
]


@pytest.mark.parametrize("mechanism, pi", [case[1:] for case in FRACTIONS], ids=[case[0] for case in FRACTIONS])
def test_every_option_is_covered_at_every_look_in_at_least_95_percent_of_streams(mechanism, pi):
    rng = np.random.default_rng(20261125)
    sequence = fraction_sequence(mechanism, _n(), _index_counts(mechanism, pi, rng), confidence=1 - ALPHA,
                                 planned=300)
    assert _missed(sequence, np.asarray(pi)) <= LIMIT


def test_multiselect_fractions_are_covered_at_every_look():
    mechanism, pi = ldp.MultiSelect(2.0, 3), np.array([0.0, 0.5, 1.0])
    rng = np.random.default_rng(7)
    truth = (rng.random((STREAMS * REPORTS, 3)) < pi).astype(np.uint8)
    reports = mechanism.randomize(truth, rng).reshape(STREAMS, REPORTS, 3)
    counts = np.cumsum(reports, axis=1, dtype=np.int64)[:, LOOKS - 1, :].reshape(-1, 3)
    sequence = fraction_sequence(mechanism, _n(), counts, confidence=1 - ALPHA, planned=300)
    assert _missed(sequence, pi) <= LIMIT


MEANS = [
    ("onebit eps=1", ldp.OneBitMean(1.0, "0", "10", "1"), {2: 0.5, 9: 0.5}),
    ("dlaplace eps=2, mean at the low edge", ldp.DiscreteLaplace(2.0, "-2", "2", "1"), {0: 1.0}),
]


@pytest.mark.parametrize("mechanism, distribution", [case[1:] for case in MEANS], ids=[case[0] for case in MEANS])
def test_a_numeric_mean_is_covered_at_every_look(mechanism, distribution):
    rng = np.random.default_rng(11)
    indexes, shares = list(distribution), list(distribution.values())
    answers = rng.choice(indexes, size=STREAMS * REPORTS, p=shares)
    reports = mechanism.randomize(answers, rng).reshape(STREAMS, REPORTS)
    totals = np.cumsum(reports, axis=1, dtype=np.int64)[:, LOOKS - 1].reshape(-1)
    build = onebit_sequence if isinstance(mechanism, ldp.OneBitMean) else laplace_sequence
    sequence = build(mechanism, _n(), totals, confidence=1 - ALPHA, planned=300)
    truth = float(mechanism.lo) + float(mechanism.step) * float(np.dot(indexes, shares))
    assert _missed(sequence, truth) <= LIMIT

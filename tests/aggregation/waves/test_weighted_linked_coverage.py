"""Seeded coverage of the weighted change between two waves that share respondents, computed as the waves service
computes it (surveys.aggregation.waves.series with weighted=true): each wave raked to the population's margins with the
service's cap, its debiased weighted fractions (`ldp.weighting.estimates.weighted_fractions`) and the change with the
shared respondents' covariance not known (`ldp.waves.pairs.between(known=False)`): the largest variance any
correlation allows, (se1 + se2)^2.

A panel: wave 1 samples 600 respondents (too many young people and northerners, answers depending on both, as
in test_weighted_coverage), wave 2 is 500 of them (a fully linked later wave, where the covariance
matters most). How the shared respondents' answers move between the waves is the unobserved part, so three ways
are drawn within each age and region cell: as few changes as the two waves' answer shares allow (the strongest
positive correlation), independently, and antithetically (wave 2's answer from 1 - u where wave 1's came from u:
a negative correlation, the case a sum of the two variances misses). Each under k-RR randomized afresh in each
wave and under remembered randomization (a permanent k-RR response per answer, randomized again each wave).
All share each draw's samples and raking. No database; about 6 CPU-s."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

import ldp
from ldp.mechanisms.remembered import Composed, Remembered
from ldp.waves.pairs import WaveChannel, between
from ldp.weighting.estimates import weighted_fractions
from ldp.weighting.raking import margin, rake
from surveys.aggregation.weighting.weights import CAP
from tests.aggregation.waves.test_weighted_coverage import AGE, ANSWERS, NORTH, SAMPLE_AGE, SAMPLE_NORTH

FIRST, SHARED = 600, 500  # wave 2: the first SHARED respondents of wave 1
LEVEL, REPS = 0.95, 600
CELLS = np.outer(AGE[1], [NORTH[1], 1 - NORTH[1]])  # one population, answering twice
CHANGE = np.einsum("ar,arj->j", CELLS, ANSWERS[2] - ANSWERS[1])
MOVES = ("fewest changes", "independent", "antithetic")
FRESH = ldp.KaryRR(4.0, 3)
REMEMBERED = Remembered(ldp.KaryRR(4.0, 3), ldp.KaryRR(3.0, 3))


def drawn(cumulative: np.ndarray, u: np.ndarray) -> np.ndarray:
    return (u[:, None] > cumulative).sum(axis=1)


def second_answers(move: str, before: np.ndarray, after: np.ndarray, first: np.ndarray, u: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
    """Each shared respondent's wave-2 answer: P(answer) `after` in their cell, joined to `first` by `move`."""
    if move == "independent":
        return drawn(np.cumsum(after, axis=1), rng.random(first.size))
    if move == "antithetic":
        return drawn(np.cumsum(after, axis=1), 1 - u)
    rows = np.arange(first.size)
    keep = rng.random(first.size) < np.minimum(before, after)[rows, first] / before[rows, first]
    gained = np.maximum(after - before, 0.0)
    gained /= np.maximum(gained.sum(axis=1, keepdims=True), 1e-300)
    return np.where(keep, first, drawn(np.cumsum(gained, axis=1), rng.random(first.size)))


def reports(remembered: bool, answers: tuple[np.ndarray, np.ndarray], rng: np.random.Generator):
    if not remembered:
        return tuple(FRESH.randomize(a, rng) for a in answers)
    panel = REMEMBERED.randomize(np.stack([answers[0][:SHARED], answers[1]]), rng)
    alone = REMEMBERED.randomize(answers[0][None, SHARED:], rng)[0]
    return np.concatenate([panel[0], alone]), panel[1]


def changes(seed: int) -> dict[tuple[str, bool], np.ndarray]:
    """(move, remembered) -> per draw and answer: [change, its bound's se, the two variances summed's se]."""
    rng = np.random.default_rng(seed)
    found: dict[tuple[str, bool], list[np.ndarray]] = {}
    for _ in range(REPS):
        age = rng.choice(3, size=FIRST, p=SAMPLE_AGE)
        region = (rng.random(FIRST) >= SAMPLE_NORTH).astype(np.int64)
        designs = [rake([margin("age", age[:n], dict(enumerate(AGE[1]))),
                         margin("region", region[:n], {0: NORTH[1], 1: 1 - NORTH[1]})], cap=CAP)
                   for n in (FIRST, SHARED)]
        before, after = ANSWERS[1][age, region], ANSWERS[2][age[:SHARED], region[:SHARED]]
        u = rng.random(FIRST)
        first = drawn(np.cumsum(before, axis=1), u)
        for move in MOVES:
            second = second_answers(move, before[:SHARED], after, first[:SHARED], u[:SHARED], rng)
            for remembered in (False, True):
                mechanism = Composed(REMEMBERED) if remembered else FRESH
                estimates = []
                for got, design in zip(reports(remembered, (first, second), rng), designs, strict=True):
                    plain = mechanism.estimate(mechanism.counts(got), got.shape[0], confidence=LEVEL)
                    weighted = weighted_fractions(mechanism, got, design, LEVEL)
                    estimates.append(replace(plain, n=weighted.n, estimate=weighted.estimate,
                                             std_error=weighted.std_error))
                wave = WaveChannel.of(REMEMBERED.instant, REMEMBERED) if remembered else WaveChannel.of(FRESH)
                change = between(*estimates, wave, wave, SHARED, LEVEL, known=False)
                summed = np.hypot(estimates[0].std_error, estimates[1].std_error)  # the bug planted below
                found.setdefault((move, remembered), []).append(
                    np.array([change.estimate, change.std_error, summed]))
    return {key: np.array(rows) for key, rows in found.items()}


def covered(draws: np.ndarray, column: int) -> np.ndarray:
    """Per answer: the share of draws whose normal interval (the column's se) covers the population's change."""
    half = 1.959963984540054 * draws[:, column]
    return (np.abs(draws[:, 0] - CHANGE) <= half).mean(axis=0)


def test_the_weighted_change_of_linked_waves_covers_at_least_its_level_however_the_answers_move():
    tolerance = 3 * math.sqrt(LEVEL * (1 - LEVEL) / REPS)  # three standard errors of a coverage estimate
    found = changes(seed=43)
    for key, draws in found.items():
        assert np.all(covered(draws, 1) >= LEVEL - tolerance), (key, covered(draws, 1), tolerance)
        assert np.all(draws[:, 1] >= draws[:, 2])  # never narrower than independent waves' interval
    # The planted bug on the same draws: the two variances summed miss the antithetic moves' negative
    # covariance (about 0.89 for two answers), while a positive one (fewest changes) only makes them wider.
    assert np.any(covered(found["antithetic", False], 2) < LEVEL - tolerance)

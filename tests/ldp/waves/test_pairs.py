"""The difference between two waves of different sizes, partly the same respondents, perhaps different
mechanisms (ldp.waves.pairs): equal to ldp.mechanisms.remembered where both apply, and tested statistically where only
it does.

The statistics simulate the respondents one by one (their answers, their remembered permanent responses and
each wave's instantaneous randomization), independently of the module's formulas; tolerances come from the
standard error of what is estimated."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import ldp
from ldp.cli.simulate_waves import panel
from ldp.mechanisms.remembered import Remembered, channel, difference
from ldp.waves.pairs import FEWEST_CHANGES, INDEPENDENT, UNKNOWN, WaveChannel, between

KRR = Remembered(ldp.KaryRR(3.0, 3), ldp.KaryRR(1.0, 3))
SUE = Remembered(ldp.SymmetricUnary(3.0, 3), ldp.SymmetricUnary(1.5, 3))


def estimates_of(remembered: Remembered, truths, n: int, seed: int):
    rng = np.random.default_rng(seed)
    answers = panel([np.asarray(t, dtype=float) for t in truths], n)
    return [remembered.estimate(remembered.counts(r), n) for r in remembered.randomize(answers, rng)]


@pytest.mark.parametrize("remembered", [KRR, SUE], ids=["krr", "sue"])
def test_the_same_respondents_under_one_design_give_what_ldp_waves_gives(remembered):
    first, second = estimates_of(remembered, [[0.2, 0.3, 0.5], [0.4, 0.3, 0.3]], 1500, seed=4)
    design = WaveChannel.of(remembered.instant, remembered)
    got = between(first, second, design, design, shared=1500, confidence=0.9)
    expected = remembered.difference(first, second, confidence=0.9)
    for field in ("estimate", "std_error", "ci_low", "ci_high"):
        assert getattr(got, field) == pytest.approx(getattr(expected, field), rel=1e-12, abs=1e-15)
    z = [e / s for e, s in zip(expected.estimate, expected.std_error, strict=True)]
    assert got.z == pytest.approx(z, rel=1e-12)
    assert got.p_value == pytest.approx([math.erfc(abs(v) / math.sqrt(2)) for v in z], rel=1e-9)
    assert (got.confidence, got.shared, got.correlation) == (0.9, 1500, FEWEST_CHANGES)


def test_waves_randomized_afresh_give_what_ldp_waves_gives_without_memory():
    mechanism = ldp.KaryRR(1.0, 3)
    rng = np.random.default_rng(5)
    answers = panel([np.array([0.2, 0.3, 0.5]), np.array([0.5, 0.2, 0.3])], 2000)
    first, second = (mechanism.estimate(mechanism.counts(mechanism.randomize(a, rng)), 2000) for a in answers)
    got = between(first, second, WaveChannel.of(mechanism), WaveChannel.of(mechanism), shared=2000)
    expected = difference(first, second, channel(mechanism), None, 0.95)
    for field in ("estimate", "std_error", "ci_low", "ci_high"):
        assert getattr(got, field) == pytest.approx(getattr(expected, field), rel=1e-12, abs=1e-15)


def test_no_shared_respondent_makes_the_waves_independent():
    first, second = estimates_of(KRR, [[0.2, 0.3, 0.5], [0.4, 0.3, 0.3]], 800, seed=6)
    design = WaveChannel.of(KRR.instant, KRR)
    got = between(first, second, design, design, shared=0)
    se = np.hypot(first.std_error, second.std_error)
    assert got.std_error == pytest.approx(tuple(se), rel=1e-12)
    assert (got.shared, got.correlation) == (0, INDEPENDENT)


def test_different_permanent_layers_take_the_largest_variance_any_correlation_allows():
    first, second = estimates_of(KRR, [[0.2, 0.3, 0.5], [0.4, 0.3, 0.3]], 800, seed=7)
    other = Remembered(ldp.KaryRR(2.0, 3), ldp.KaryRR(1.0, 3))
    got = between(first, second, WaveChannel.of(KRR.instant, KRR), WaveChannel.of(other.instant, other), shared=500)
    assert got.std_error == pytest.approx(tuple(np.add(first.std_error, second.std_error)), rel=1e-12)
    assert (got.shared, got.correlation) == (500, UNKNOWN)


def test_a_covariance_not_known_takes_the_largest_variance_and_no_shared_respondent_still_adds():
    # What the weighted waves use: their covariance through the weights has no formula here (`known=False`).
    first, second = estimates_of(KRR, [[0.2, 0.3, 0.5], [0.4, 0.3, 0.3]], 800, seed=7)
    design = WaveChannel.of(KRR.instant, KRR)
    got = between(first, second, design, design, shared=300, known=False)
    assert got.std_error == pytest.approx(tuple(np.add(first.std_error, second.std_error)), rel=1e-12)
    assert (got.shared, got.correlation) == (300, UNKNOWN)
    assert np.all(np.array(got.std_error) > between(first, second, design, design, shared=300).std_error)
    alone = between(first, second, design, design, shared=0, known=False)
    assert alone.std_error == pytest.approx(tuple(np.hypot(first.std_error, second.std_error)), rel=1e-12)
    assert (alone.shared, alone.correlation) == (0, INDEPENDENT)


def test_the_covariance_is_the_shared_respondents_over_both_waves_sizes():
    # Each wave's estimate is a mean over its own respondents: Cov(mean_1, mean_2) = shared c / (n1 n2), c the
    # covariance of one shared respondent's two reports; here read off the all-shared case of 800.
    first, second = estimates_of(KRR, [[0.2, 0.3, 0.5], [0.4, 0.3, 0.3]], 800, seed=9)
    design = WaveChannel.of(KRR.instant, KRR)
    se1, se2 = np.square(first.std_error), np.square(second.std_error)
    per_respondent = 800 * (se1 + se2 - np.square(between(first, second, design, design, 800).std_error)) / 2
    bigger, smaller = dataclasses.replace(first, n=1000), dataclasses.replace(second, n=900)
    got = between(bigger, smaller, design, design, shared=600)
    assert np.square(got.std_error) == pytest.approx(se1 + se2 - 2 * 600 * per_respondent / (1000 * 900), rel=1e-9)


def test_shared_respondents_are_never_more_than_the_smaller_wave():
    first, second = estimates_of(KRR, [[0.2, 0.3, 0.5], [0.4, 0.3, 0.3]], 800, seed=8)
    design = WaveChannel.of(KRR.instant, KRR)
    assert between(first, second, design, design, shared=10**9) == between(first, second, design, design, 800)


def test_it_refuses_a_wave_without_reports_or_with_other_options():
    design = WaveChannel.of(KRR.instant, KRR)
    empty = KRR.estimate([0, 0, 0], 0)
    some = KRR.estimate([5, 3, 2], 10)
    with pytest.raises(ValueError, match="both waves need reports"):
        between(empty, some, design, design, 0)
    with pytest.raises(ValueError, match="same options"):
        between(some, KRR.estimate([5, 5], 10), design, design, 0)


def one_wave_each(permanent: ldp.Mechanism, instants: tuple[ldp.Mechanism, ldp.Mechanism], answers, rng):
    """Reports of two waves of the same respondents: each respondent's permanent response to an answer drawn
    once (an answer kept keeps it, a changed one draws anew), each wave's instantaneous layer its own."""
    kept_first = permanent.randomize(answers[0], rng)
    redrawn = permanent.randomize(answers[1], rng)
    kept_second = np.where(answers[1] == answers[0], kept_first, redrawn)
    return instants[0].randomize(kept_first, rng), instants[1].randomize(kept_second, rng)


CASES = {
    # name: (permanent, instantaneous layers of the two waves, truths, wave sizes, shared)
    "krr, half shared": (ldp.KaryRR(1.5, 3), (ldp.KaryRR(2.0, 3), ldp.KaryRR(2.0, 3)),
                         [[0.2, 0.3, 0.5], [0.4, 0.3, 0.3]], (2000, 1600), 1000),
    "qrr, mostly shared, another instant layer": (ldp.QRandomizedResponse("0.5"),
                                                  (ldp.QRandomizedResponse("0.7"), ldp.QRandomizedResponse("0.8")),
                                                  [[0.7, 0.3], [0.65, 0.35]], (1500, 1800), 1400),
    "krr, unchanged": (ldp.KaryRR(1.5, 3), (ldp.KaryRR(3.0, 3), ldp.KaryRR(3.0, 3)),
                                      [[0.2, 0.3, 0.5], [0.2, 0.3, 0.5]], (1200, 1200), 900),
}
REPS = 400


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_difference_of_partly_shared_waves_has_its_stated_variance_and_covers(case):
    permanent, instants, truths, sizes, shared = CASES[case]
    rng = np.random.default_rng(sorted(CASES).index(case))
    truth = np.asarray(truths, dtype=float)
    both = panel(list(truth), shared)
    layers = [Remembered(permanent, instant) for instant in instants]
    designs = [WaveChannel.of(instant, layer) for instant, layer in zip(instants, layers, strict=True)]
    changes = []
    for _ in range(REPS):
        shared_reports = one_wave_each(permanent, instants, both, rng)
        estimates = []
        for w in range(2):
            # The rest of each wave: a fresh sample of the population (the estimates' standard errors count it).
            alone = rng.choice(truth.shape[1], size=sizes[w] - shared, p=truth[w])
            own = instants[w].randomize(permanent.randomize(alone, rng), rng)
            reports = np.concatenate([shared_reports[w], own])
            estimates.append(layers[w].estimate(instants[w].counts(reports), sizes[w]))
        changes.append(between(*estimates, *designs, shared=shared))
    change = truth[1] - truth[0]
    observed = np.array([c.estimate for c in changes]).var(axis=0, ddof=1)
    stated = (np.array([c.std_error for c in changes]) ** 2).mean(axis=0)
    assert (np.abs(observed / stated - 1) < 4 * math.sqrt(2 / (REPS - 1))).all(), (observed, stated)
    assert (np.abs(np.array([c.estimate for c in changes]).mean(axis=0) - change)
            < 4 * np.sqrt(stated / REPS)).all()
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / REPS)
    covered = np.array([(np.array(c.ci_low) <= change) & (change <= np.array(c.ci_high)) for c in changes])
    assert (covered.mean(axis=0) >= floor).all()

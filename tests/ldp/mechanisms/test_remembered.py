"""Waves with remembered randomization (ldp.mechanisms.remembered): the composed channel and its privacy from the
integers,
the remembered layer, and per-wave estimates and the difference of two waves, tested statistically.

The expectations are built independently: the composed channel by enumerating every permanent response and
every report with exact fractions of the samplers' integers; the statistics against seeded simulations whose
tolerances come from the standard error of what they estimate."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import ldp
from ldp.cli.simulate_waves import panel
from ldp.mechanisms.remembered import Remembered, channel, difference

LAYERS = {
    "qrr": (ldp.QRandomizedResponse("0.8"), ldp.QRandomizedResponse("0.5")),
    "bitflip": (ldp.BitFlip(2.5), ldp.BitFlip(1.0)),
    "krr": (ldp.KaryRR(3.0, 3), ldp.KaryRR(1.0, 3)),
    "sue": (ldp.SymmetricUnary(3.0, 3), ldp.SymmetricUnary(1.5, 3)),
    "oue": (ldp.OptimizedUnary(3.0, 3), ldp.OptimizedUnary(1.5, 3)),
}


def report_probabilities(mechanism: ldp.Mechanism) -> dict[tuple[int, ...], list[Fraction]]:
    """P(report | truth) for every report, exactly, from the sampler's integers: an index report is one
    option; a unary report a tuple of bits."""
    a, b, modulus = type(mechanism).sampler_channel(mechanism.sampler())
    p, q = Fraction(a, modulus), Fraction(b, modulus)
    k = mechanism.k
    if mechanism.unary:
        return {bits: [math.prod(p if j == x and bit else 1 - p if j == x else q if bit else 1 - q
                                 for j, bit in enumerate(bits)) for x in range(k)]
                for bits in itertools.product((0, 1), repeat=k)}
    return {(r,): [p if r == x else q for x in range(k)] for r in range(k)}


def waves_epsilon(permanent: ldp.Mechanism, instant: ldp.Mechanism, waves: int) -> float:
    """The loss of `waves` reports of one unchanged answer, by enumeration: sum over the permanent response b
    of P(b | x) times the product of each wave's P(report | b); the largest log ratio over two answers."""
    remembered = report_probabilities(permanent)
    worst = Fraction(1)
    for reports in itertools.product(remembered, repeat=waves):  # reports have the permanent responses' form
        chance = [sum(remembered[b][x] * math.prod(sent_given(instant, r, b) for r in reports) for b in remembered)
                  for x in range(permanent.k)]
        worst = max(worst, max(chance) / min(chance))
    return math.log(worst)


def sent_given(instant: ldp.Mechanism, report: tuple[int, ...], permanent: tuple[int, ...]) -> Fraction:
    """P(report | permanent response) of the instantaneous layer: an index channel keeps the option with p
    (any given other with q); a unary one keeps each bit with its own channel."""
    a, b, modulus = type(instant).sampler_channel(instant.sampler())
    p, q = Fraction(a, modulus), Fraction(b, modulus)
    if instant.unary:
        bits = zip(report, permanent, strict=True)
        return math.prod((p if r else 1 - p) if s else (q if r else 1 - q) for r, s in bits)
    return p if report == permanent else q


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_one_wave_costs_what_the_composed_channel_states(name):
    permanent, instant = LAYERS[name]
    remembered = Remembered(permanent, instant)
    assert remembered.wave_epsilon == pytest.approx(waves_epsilon(permanent, instant, 1), rel=1e-12)
    assert remembered.wave_epsilon < min(permanent.effective_epsilon, instant.effective_epsilon)


@pytest.mark.parametrize("name", ["qrr", "krr", "sue"])
def test_more_waves_of_an_unchanged_answer_never_cost_more_than_the_permanent_layer(name):
    permanent, instant = LAYERS[name]
    remembered = Remembered(permanent, instant)
    losses = [waves_epsilon(permanent, instant, w) for w in (1, 2, 3)]
    assert losses[0] < losses[1] < losses[2] <= remembered.all_waves_epsilon
    assert remembered.all_waves_epsilon == permanent.effective_epsilon


def test_the_composed_channel_is_exact():
    permanent, instant = LAYERS["krr"]
    p, q = Remembered(permanent, instant).exact_channel()
    (p1, q1), (p2, q2) = channel(permanent), channel(instant)
    matrix = [[p1 if b == x else q1 for x in range(3)] for b in range(3)]
    sent = [[p2 if r == b else q2 for b in range(3)] for r in range(3)]
    composed = [[sum(sent[r][b] * matrix[b][x] for b in range(3)) for x in range(3)] for r in range(3)]
    assert (p, q) == (composed[0][0], composed[1][0])
    assert all(composed[r][x] == (p if r == x else q) for r in range(3) for x in range(3))


def test_it_refuses_layers_of_two_families():
    with pytest.raises(ValueError, match="two index channels"):
        Remembered(ldp.KaryRR(2.0, 3), ldp.SymmetricUnary(1.0, 3))
    with pytest.raises(ValueError, match="same number of options"):
        Remembered(ldp.KaryRR(2.0, 4), ldp.KaryRR(1.0, 3))
    with pytest.raises(ValueError, match="two index channels"):
        Remembered(ldp.MultiSelect(2.0, 3, None), ldp.MultiSelect(1.0, 3, None))


def test_an_unchanged_answer_keeps_its_permanent_response_and_a_changed_one_draws_a_new_one():
    # The direct channel as the instantaneous layer sends the permanent response itself.
    remembered = Remembered(ldp.KaryRR(0.5, 4), ldp.make("direct", k=4))
    answers = np.array([[0] * 500 + [1] * 500, [0] * 500 + [2] * 500, [0] * 500 + [1] * 500])
    first, second, third = remembered.randomize(answers, np.random.default_rng(3))
    assert (first[:500] == second[:500]).all() and (first[:500] == third[:500]).all()
    assert (first[500:] == third[500:]).all()  # answer 1 again: the same remembered response
    agree = float(np.mean(first[500:] == second[500:]))  # answer 2 is a fresh draw, independent of the first
    p, q = (float(x) for x in channel(ldp.KaryRR(0.5, 4)))
    expected = p * q + q * p + 2 * q * q  # P(two independent responses to answers 1 and 2 agree)
    assert abs(agree - expected) < 4 * math.sqrt(expected * (1 - expected) / 500)


def test_the_panel_reaches_each_wave_by_the_fewest_changes():
    truths = [np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5]), np.array([0.2, 0.6, 0.2])]
    answers = panel(truths, 1000)
    assert [np.bincount(row, minlength=3).tolist() for row in answers] == [[500, 300, 200], [200, 300, 500],
                                                                          [200, 600, 200]]
    assert [int((answers[w] != answers[w + 1]).sum()) for w in range(2)] == [300, 300]


def simulate(remembered: Remembered | None, instant: ldp.Mechanism, truths, n: int, reps: int, seed: int):
    """Estimates of every wave and the last-minus-first difference, over `reps` seeded repetitions."""
    rng = np.random.default_rng(seed)
    answers = panel([np.asarray(t, dtype=float) for t in truths], n)
    waves, changes = [], []
    for _ in range(reps):
        if remembered is not None:
            estimates = [remembered.estimate(remembered.counts(r), n) for r in remembered.randomize(answers, rng)]
            changes.append(remembered.difference(estimates[0], estimates[-1]))
        else:
            estimates = [instant.estimate(instant.counts(instant.randomize(a, rng)), n) for a in answers]
            changes.append(difference(estimates[0], estimates[-1], channel(instant), None, 0.95))
        waves.append(estimates)
    return waves, changes


CASES = {
    "qrr, answers changing": ("qrr", [[0.7, 0.3], [0.6, 0.4]]),
    "qrr, strong memory, answers unchanged": ("qrr-strong", [[0.7, 0.3], [0.7, 0.3]]),
    "krr": ("krr", [[0.2, 0.3, 0.5], [0.5, 0.2, 0.3]]),
    "krr, strong memory, answers unchanged": ("krr-strong", [[0.2, 0.3, 0.5], [0.2, 0.3, 0.5]]),
    "sue": ("sue", [[0.2, 0.3, 0.5], [0.3, 0.3, 0.4]]),
    "oue, near 0": ("oue", [[0.02, 0.18, 0.8], [0.02, 0.28, 0.7]]),
    "bitflip, fresh each wave": ("bitflip-fresh", [[0.9, 0.1], [0.8, 0.2]]),
}
REPS, N = 400, 2000


def _layers(name: str) -> tuple[Remembered | None, ldp.Mechanism]:
    if name == "qrr-strong":
        strong = ldp.QRandomizedResponse("0.9")
        return Remembered(strong, strong), strong
    if name == "krr-strong":
        return Remembered(ldp.KaryRR(3.0, 3), ldp.KaryRR(3.0, 3)), ldp.KaryRR(3.0, 3)
    if name == "bitflip-fresh":
        return None, ldp.BitFlip(1.0)
    permanent, instant = LAYERS[name]
    return Remembered(permanent, instant), instant


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_waves_are_unbiased_and_the_difference_covers_with_its_stated_variance(case):
    name, truths = CASES[case]
    remembered, instant = _layers(name)
    waves, changes = simulate(remembered, instant, truths, N, REPS, seed=sorted(CASES).index(case))
    truth = np.asarray(truths, dtype=float)
    estimates = np.array([[w.estimate for w in rep] for rep in waves])  # (reps, waves, k)
    errors = np.array([[w.std_error for w in rep] for rep in waves])
    # Unbiased: each wave's mean estimate within 4 standard errors of the mean of the truth.
    assert (np.abs(estimates.mean(axis=0) - truth) < 4 * errors.mean(axis=0) / math.sqrt(REPS)).all()
    # Each option's interval, every wave: coverage at least 95% less 3 standard errors of a coverage.
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / REPS)
    lows, highs = (np.array([[getattr(w, end) for w in rep] for rep in waves]) for end in ("ci_low", "ci_high"))
    assert (((lows <= truth) & (truth <= highs)).mean(axis=0) >= floor).all()
    # The difference: its stated variance is the observed one (the sample variance's relative standard error
    # is sqrt(2 / (reps - 1))), and its interval covers.
    change = truth[-1] - truth[0]
    observed = np.array([c.estimate for c in changes]).var(axis=0, ddof=1)
    stated = (np.array([c.std_error for c in changes]) ** 2).mean(axis=0)
    assert (np.abs(observed / stated - 1) < 4 * math.sqrt(2 / (REPS - 1))).all(), (observed, stated)
    covered = np.array([(np.array(c.ci_low) <= change) & (change <= np.array(c.ci_high)) for c in changes])
    assert (covered.mean(axis=0) >= floor).all()

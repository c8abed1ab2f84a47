"""One wave of a question that remembers its randomization, as one mechanism (ldp.mechanisms.remembered.Composed): the
instantaneous layer's reports and sampler, read through the composed channel of both layers, one wave's loss,
and a description and dict that give both layers back."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

import ldp
from ldp.means.ordinal import scored_mean
from ldp.mechanisms.remembered import Composed, Remembered, instantaneous
from ldp.offline.codebook import CodebookQuestion
from ldp.offline.means import mean_of, rebuilt
from tests.ldp.mechanisms.test_remembered import LAYERS


@pytest.fixture(params=sorted(LAYERS))
def composed(request) -> Composed:
    permanent, instant = LAYERS[request.param]
    return Composed(Remembered(permanent=permanent, instant=instant))


def test_its_channel_is_the_composed_one_exactly_and_its_reports_the_instantaneous_layers(composed):
    layers, instant = composed.layers, composed.instant
    p, q = layers.exact_channel()
    a, b, modulus = composed.channel()
    assert (Fraction(a, modulus), Fraction(b, modulus)) == (p, q)
    assert (composed.p, composed.q_other) == (float(p), float(q))
    assert composed.effective_epsilon == layers.wave_epsilon < instant.effective_epsilon
    assert composed.sampler() == instant.sampler()
    assert (composed.name, composed.label, composed.k, composed.encoding, composed.unary, composed.yes_no,
            composed.one_of_k, composed.parameter, composed.randomized, composed.estimates_mean) == (
        instant.name, instant.label, instant.k, instant.encoding, instant.unary, instant.yes_no, instant.one_of_k,
        instant.parameter, True, False)
    report = [1] + [0] * (instant.k - 1) if instant.unary else instant.k - 1
    assert composed.encode(report) == instant.encode(report)
    assert composed.decode(1) == instant.decode(1) and composed.slots(1) == instant.slots(1)
    assert np.array_equal(composed.tally([0, 1], [3, 4]), instant.tally([0, 1], [3, 4]))
    assert instantaneous(composed) is instant and instantaneous(instant) is instant


def test_it_estimates_as_the_two_layers_do(composed):
    counts = [40 + 7 * j for j in range(composed.k)]
    n = sum(counts) if not composed.unary else 300
    assert composed.estimate(counts, n, confidence=0.9) == composed.layers.estimate(counts, n, confidence=0.9)
    assert composed.estimate(counts, n) != composed.instant.estimate(counts, n)
    if not composed.unary:
        with pytest.raises(ValueError, match="add up to n"):
            composed.estimate(counts, n + 1)


def test_its_description_has_the_composed_fractions_and_the_permanent_layer_beside_it(composed):
    described, instant = composed.describe(), composed.instant.describe()
    a, b, modulus = composed.channel()
    assert described == {**instant, "parameters": {**instant["parameters"], "permanent": composed.permanent.to_dict()},
                         "effective_epsilon": composed.layers.wave_epsilon, "q_equivalent": composed.q_equivalent,
                         "p": composed.p, "q_other": composed.q_other, "p_exact": f"{a}/{modulus}",
                         "q_other_exact": f"{b}/{modulus}", "permanent": composed.permanent.describe()}
    assert math.lcm(Fraction(a, modulus).denominator, Fraction(b, modulus).denominator) == modulus


def test_its_dict_rebuilds_it(composed):
    data = composed.to_dict()
    assert data == {**composed.instant.to_dict(), "permanent": composed.permanent.to_dict()}
    assert ldp.from_dict(data) == composed
    assert ldp.from_dict({key: value for key, value in data.items() if key != "permanent"}) == composed.instant


def test_a_dict_whose_layers_do_not_fit_is_refused():
    with pytest.raises(ValueError, match="same number of options"):
        ldp.from_dict({"mechanism": "krr", "epsilon": 1.0, "k": 3, "permanent": {"mechanism": "krr", "epsilon": 3.0,
                                                                                "k": 4}})
    with pytest.raises(ValueError, match="index channels"):
        ldp.from_dict({"mechanism": "krr", "epsilon": 1.0, "k": 3, "permanent": {"mechanism": "sue", "epsilon": 3.0,
                                                                                "k": 3}})


def test_one_wave_of_new_respondents_reports_through_the_composed_channel():
    composed = Composed(Remembered(permanent=ldp.KaryRR(3.0, 3), instant=ldp.KaryRR(1.0, 3)))
    n = 40_000
    reports = composed.randomize(np.zeros(n, dtype=np.int64), np.random.default_rng(7))
    share = np.bincount(reports, minlength=3) / n
    expected = np.array([composed.p, composed.q_other, composed.q_other])
    assert np.all(np.abs(share - expected) <= 4 * np.sqrt(expected * (1 - expected) / n))


def test_an_ordinal_questions_mean_score_is_read_back_from_its_codebook_entry_through_both_layers():
    """`ldp analyze` rebuilds a mechanism from the codebook only for a mean (score): there it must be both layers."""
    composed = Composed(Remembered(permanent=ldp.KaryRR(3.0, 3), instant=ldp.KaryRR(1.0, 3)))
    described = json.loads(json.dumps(composed.describe()))  # as the codebook carries it
    design = CodebookQuestion(key="q1", text="How is work?", options=("Bad", "Fair", "Good"),
                              mechanism=described["name"], randomized=True, encoding="index", columns=("q1",),
                              p_exact=described["p_exact"], q_other_exact=described["q_other_exact"],
                              described=described, scores=("1", "2", "3"))
    assert rebuilt(design) == composed
    counts = {0: 70, 1: 100, 2: 130}
    assert mean_of(design, list(counts.values()), counts, 300, 0.95) == scored_mean(
        composed, list(counts.values()), 300, [1.0, 2.0, 3.0], 0.95)

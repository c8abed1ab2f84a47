"""The multi-select, 1-bit mean and discrete Laplace mechanisms as values: construction, the registry,
serialization, reports, description, and the rules of randomize() on small cases."""

from __future__ import annotations

import dataclasses
import json
import math
from decimal import Decimal

import numpy as np
import pytest

import ldp

CASES = [ldp.MultiSelect(1.0, 4), ldp.MultiSelect(2.0, 6, at_most=2), ldp.OneBitMean(1.0, "0", "10", "0.5"),
       ldp.OneBitMean(0.05, "-3", "3", "1"), ldp.DiscreteLaplace(1.0, "0", "100", "1"),
       ldp.DiscreteLaplace(10.0, "1", "5", "0.25")]
IDS = [repr(m) for m in CASES]


@pytest.mark.parametrize("m", CASES, ids=IDS)
def test_they_round_trip_through_json_and_the_registry(m):
    data = json.loads(json.dumps(m.to_dict()))
    assert ldp.from_dict(data) == m and hash(ldp.from_dict(data)) == hash(m)
    assert ldp.from_dict(data).sampler() == m.sampler()
    assert ldp.MECHANISMS[m.name] is type(m)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.epsilon = 2.0  # type: ignore[misc]
    assert not m.yes_no and m.name not in ldp.YES_NO and m.name not in ldp.ONE_OF_K


def test_the_contracts_parameters_and_encodings():
    assert ldp.MultiSelect(1.0, 4, 2).to_dict() == {"mechanism": "multiselect", "epsilon": 1.0, "k": 4, "at_most": 2}
    assert ldp.OneBitMean(1.0, "0.0", "10", "0.50").to_dict() == {
        "mechanism": "onebit", "epsilon": 1.0, "lo": "0", "hi": "10", "step": "0.5"}
    assert (ldp.MultiSelect(1.0, 4).encoding, ldp.OneBitMean(1.0, "0", "1", "1").encoding,
            ldp.DiscreteLaplace(1.0, "0", "1", "1").encoding) == ("bits", "index", "integer")
    ks = ldp.MultiSelect(1.0, 4).k, ldp.OneBitMean(1.0, "0", "9", "1").k, ldp.DiscreteLaplace(1.0, "0", "9", "1").k
    assert ks == (4, 2, 10)
    assert ldp.NUMERIC == {"onebit", "dlaplace", "direct_number"}


def test_make_builds_them_and_refuses_parameters_they_do_not_take():
    assert ldp.make("multiselect", k=5, epsilon=1.0, at_most=2) == ldp.MultiSelect(1.0, 5, 2)
    assert ldp.make("onebit", epsilon=1.0, lo="0", hi="1", step="0.1") == ldp.OneBitMean(1.0, "0", "1", "0.1")
    assert ldp.make("dlaplace", epsilon=1.0, lo=0, hi=10, step=1) == ldp.DiscreteLaplace(1.0, "0", "10", "1")
    for name, kwargs, word in [("krr", {"k": 3, "epsilon": 1.0, "at_most": 1}, "at_most"),
                               ("krr", {"k": 3, "epsilon": 1.0, "lo": "0"}, "lo"),
                               ("onebit", {"epsilon": 1.0, "lo": "0", "hi": "1"}, "step"),
                               ("dlaplace", {"q": "0.5", "lo": "0", "hi": "1", "step": "1"}, "epsilon")]:
        with pytest.raises(ValueError, match=word):
            ldp.make(name, **kwargs)


@pytest.mark.parametrize("kwargs, error, word", [
    ({"lo": 0.0, "hi": "1", "step": "1"}, TypeError, "lo"),
    ({"lo": "0", "hi": "1", "step": 0.1}, TypeError, "float"),
    ({"lo": "1", "hi": "1", "step": "1"}, ValueError, "below"),
    ({"lo": "0", "hi": "1", "step": "-1"}, ValueError, "positive"),
    ({"lo": "0", "hi": "1", "step": "0.3"}, ValueError, "whole"),
    ({"lo": "0", "hi": "1000001", "step": "1"}, ValueError, "1000000"),
    ({"lo": "x", "hi": "1", "step": "1"}, ValueError, "lo"),
    ({"lo": "NaN", "hi": "1", "step": "1"}, ValueError, "finite"),
    ({"lo": True, "hi": "1", "step": "1"}, TypeError, "lo"),
])
@pytest.mark.parametrize("cls", [ldp.OneBitMean, ldp.DiscreteLaplace])
def test_grid_parameters_are_checked_first_with_explicit_errors(cls, kwargs, error, word):
    with pytest.raises(error, match=word):
        cls(1.0, **kwargs)


def test_the_grid_is_exact_decimal_arithmetic():
    m = ldp.OneBitMean(1.0, "0.1", "0.3", "0.1")
    assert m.steps == 2 and m.value(1) == Decimal("0.2") and m.index("0.3") == 2 and m.index(Decimal("0.10")) == 0
    with pytest.raises(ValueError, match="not on the grid"):
        m.index("0.25")
    with pytest.raises(ValueError, match="grid index"):
        m.value(3)
    assert ldp.OneBitMean(1.0, "0", "1000000", "1").steps == 10**6


@pytest.mark.parametrize("kwargs, error, word", [
    ({"at_most": 0}, ValueError, "at_most"), ({"at_most": 4}, ValueError, "at_most"),
    ({"at_most": True}, TypeError, "at_most"), ({"at_most": 1.0}, TypeError, "at_most"),
])
def test_multiselect_at_most_lies_between_one_and_k_minus_one(kwargs, error, word):
    with pytest.raises(error, match=word):
        ldp.MultiSelect(1.0, 4, **kwargs)


def test_multiselect_reports_are_bitmasks_and_tally_counts_ones_per_option():
    m = ldp.MultiSelect(1.0, 3, 1)
    assert m.encode([1, 0, 1]) == 5 and m.decode(5) == [1, 0, 1] and m.slots(5) == (0, 2)
    assert m.tally([5, 2, 0], [3, 4, 1]).tolist() == [3, 4, 3]
    for bad in ([1, 0], [1, 0, 2], [True, 0, 0], 5):
        with pytest.raises(ldp.ReportError):
            m.encode(bad)


def test_multiselect_randomize_takes_bit_rows_and_refuses_more_than_at_most_ticks():
    m = ldp.MultiSelect(1.0, 3, 1)
    rng = np.random.default_rng(0)
    assert m.randomize(np.array([[1, 0, 0], [0, 0, 0]]), rng).shape == (2, 3)
    with pytest.raises(ValueError, match="at_most"):
        m.randomize(np.array([[1, 1, 0]]), rng)
    for bad in (np.array([0, 1, 2]), np.array([[2, 0, 0]]), np.zeros((2, 4), dtype=int)):
        with pytest.raises(ValueError):
            m.randomize(bad, rng)


def test_multiselect_keeps_each_bit_exactly_when_u_is_below_keep():
    """With a generator whose integers are known, the report is truth xor [U >= keep], bit by bit."""
    m = ldp.MultiSelect(1.0, 4)
    truth = np.array([[1, 0, 1, 0]] * 3)
    u = np.random.default_rng(5).integers(0, m.modulus, size=truth.shape, dtype=np.uint32)
    reports = m.randomize(truth, np.random.default_rng(5))
    assert (reports == (truth ^ (u >= m.keep))).all()


def test_onebit_follows_its_rule_with_the_generators_integers():
    m = ldp.OneBitMean(1.0, "0", "10", "1")
    truth = np.array([0, 3, 7, 10, 5])
    check = np.random.default_rng(9)
    u1 = check.integers(0, 10, size=5, dtype=np.int64)
    u2 = check.integers(0, m.modulus, size=5, dtype=np.uint32)
    expected = np.where(u2 < m.keep, u1 < truth, u1 >= truth).astype(int)
    assert m.randomize(truth, np.random.default_rng(9)).tolist() == expected.tolist()


def test_onebit_reports_are_bits():
    m = ldp.OneBitMean(1.0, "0", "10", "1")
    assert m.encode(1) == 1 and m.slots(0) == (0,) and m.tally([0, 1], [4, 6]).tolist() == [4, 6]
    for bad in (2, -1, True, "1"):
        with pytest.raises(ldp.ReportError):
            m.encode(bad)
    with pytest.raises(ValueError, match="grid indexes"):
        m.randomize([0, 11], np.random.default_rng(0))


def test_dlaplace_reports_are_integers_stored_shifted_by_the_bound():
    m = ldp.DiscreteLaplace(1.0, "0", "10", "1")
    assert m.encode(-m.bound) == 0 and m.encode(10 + m.bound) == 10 + 2 * m.bound and m.decode(m.bound) == 0
    assert m.slots(123) == () and m.tally([0, 5], [1, 2]).tolist() == [0] * 11
    for bad in (-m.bound - 1, 11 + m.bound, 1.0, True, "3"):
        with pytest.raises(ldp.ReportError):
            m.encode(bad)
    with pytest.raises(TypeError, match="estimate_mean"):
        m.estimate([1, 2], 3)
    with pytest.raises(TypeError, match="histogram"):
        m.counts([1, 2])


def test_dlaplace_clamps_to_the_bound():
    m = ldp.DiscreteLaplace(0.05, "0", "1000", "1")  # scale 20000: many draws land beyond a small window
    reports = m.randomize(np.zeros(200_000, dtype=int), np.random.default_rng(3))
    assert reports.min() >= -m.bound and reports.max() <= 1000 + m.bound
    assert (np.abs(reports) > 20_000).any()


def test_histogram_is_the_group_by_of_stored_values():
    m = ldp.DiscreteLaplace(1.0, "0", "10", "1")
    reports = np.array([3, -2, 3, 15, 3])
    values, counts = m.histogram(reports)
    assert values.tolist() == [m.bound - 2, m.bound + 3, m.bound + 15] and counts.tolist() == [1, 3, 1]
    wide = np.array([-m.bound, 10 + m.bound])  # a range wider than a counting pass is worth: sorted instead
    assert m.histogram(wide)[0].tolist() == [0, 10 + 2 * m.bound]


def test_describe_says_what_a_reader_needs_to_redo_the_estimate():
    multi = ldp.MultiSelect(2.0, 5, at_most=2).describe()
    assert multi["hamming_d"] == 4 and multi["at_most"] == 2
    assert multi["per_bit_epsilon"] * 4 == pytest.approx(multi["effective_epsilon"], rel=1e-12)
    assert multi["p_exact"] == f"{multi['sampler']['keep']}/{2**32}"
    onebit = ldp.OneBitMean(1.0, "0", "10", "0.5").describe()
    assert (onebit["lo"], onebit["hi"], onebit["step"], onebit["steps"]) == ("0", "10", "0.5", 20)
    laplace = ldp.DiscreteLaplace(1.0, "0", "10", "1").describe()
    assert laplace["scale_exact"] == "10/1" and laplace["scale"] == 10.0 and laplace["p"] is None
    assert laplace["noise_variance"] == pytest.approx(2 * math.exp(-0.1) / (1 - math.exp(-0.1)) ** 2, rel=1e-12)
    assert laplace["effective_epsilon"] == 1.0 and laplace["bound"] == laplace["sampler"]["bound"]
    assert set(ldp.KaryRR(1.0, 3).describe()) <= set(laplace)


def test_samplers_hold_exactly_the_published_integers():
    assert set(ldp.MultiSelect(1.0, 4).sampler()) == {"kind", "k", "at_most", "modulus", "keep"}
    assert set(ldp.OneBitMean(1.0, "0", "1", "1").sampler()) == {"kind", "steps", "modulus", "keep", "lo", "hi", "step"}
    assert set(ldp.DiscreteLaplace(1.0, "0", "1", "1").sampler()) == {
        "kind", "steps", "scale_num", "scale_den", "bound", "lo", "hi", "step"}
    for m in CASES:
        assert ldp.mechanisms.registry.sampler_epsilon(m.sampler()) == pytest.approx(m.effective_epsilon, rel=1e-12)
    with pytest.raises(ValueError, match="no p and q_other"):
        ldp.mechanisms.registry.sampler_channel(CASES[-1].sampler())

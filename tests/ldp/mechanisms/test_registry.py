"""ldp.mechanisms.registry: each mechanism declares what it is, and the registry only collects it.

A published sampler finds the class whose privacy map reads it by its kind; the sets of names the app
uses (yes/no, one of k, numeric means) follow from the classes' own declarations; `from_dict` takes
exactly the keys each class declares.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import ldp
from ldp.mechanisms import registry

EXAMPLES = [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(1.0), ldp.KaryRR(1.0, 4), ldp.SymmetricUnary(1.0, 3),
            ldp.OptimizedUnary(2.0, 5), ldp.Direct(3), ldp.MultiSelect(2.0, 5, at_most=2),
            ldp.OneBitMean(1.0, "0", "10", "1"), ldp.DiscreteLaplace(1.0, "0", "10", "1"),
            ldp.DirectNumber("0", "10", "1")]


def test_the_examples_cover_every_mechanism():
    assert {m.name for m in EXAMPLES} == set(ldp.MECHANISMS)


@pytest.mark.parametrize("mechanism", EXAMPLES, ids=lambda m: m.name)
def test_a_sampler_finds_the_class_whose_privacy_map_reads_it(mechanism):
    cls = registry.by_sampler(mechanism.sampler())
    # A direct number publishes the direct question's sampler (the identity on its grid): Direct's map reads it.
    assert isinstance(mechanism, cls) or type(mechanism).sampler_epsilon == cls.sampler_epsilon
    assert registry.sampler_epsilon(mechanism.sampler()) == mechanism.privacy_loss()
    if mechanism.randomized:
        assert registry.sampler_loss(mechanism.sampler()) == type(mechanism).sampler_loss(mechanism.sampler())


def test_the_privacy_map_of_each_kind_of_sampler():
    grr = {"kind": "grr", "k": 3, "modulus": 7, "keep": 3, "other": 2}
    unary = {"kind": "unary", "k": 3, "modulus": 8, "one_if_true": 6, "one_if_false": 2}
    multiselect = {"kind": "multiselect", "k": 5, "at_most": 2, "modulus": 8, "keep": 6}
    onebit = {"kind": "onebit", "steps": 4, "modulus": 8, "keep": 6}
    dlaplace = {"kind": "dlaplace", "steps": 3, "scale_num": 7, "scale_den": 2, "bound": 50}

    assert [registry.sampler_loss(s) for s in (grr, unary, multiselect, onebit, dlaplace)] == [
        (F(3, 2), F(0)), (F(6 * 6, 2 * 2), F(0)), (F(3) ** 4, F(0)), (F(3), F(0)), (F(1), F(6, 7))]
    assert [registry.sampler_channel(s) for s in (grr, unary, multiselect, onebit)] == [
        (3, 2, 7), (6, 2, 8), (6, 2, 8), (6, 2, 8)]
    assert registry.sampler_channel({"kind": "direct", "k": 3}) == (1, 0, 1)
    with pytest.raises(ValueError, match="not randomized"):
        registry.sampler_loss({"kind": "direct", "k": 3})
    with pytest.raises(ValueError, match="no p and q_other"):
        registry.sampler_channel(dlaplace)


def test_an_unknown_sampler_kind_is_refused():
    with pytest.raises(ValueError, match="kind must be one of"):
        registry.by_sampler({"kind": "krr", "k": 3})


def test_the_sets_of_names_follow_from_what_each_mechanism_declares():
    assert ldp.YES_NO == {"qrr", "bitflip"}
    assert ldp.ONE_OF_K == {"qrr", "bitflip", "krr", "sue", "oue", "direct"}
    assert ldp.NUMERIC == {"onebit", "dlaplace", "direct_number"}
    assert {name for name, cls in ldp.MECHANISMS.items() if cls.keeps_bits} == {"multiselect", "onebit"}
    assert {name: cls.mean_interval for name, cls in ldp.MECHANISMS.items() if cls.mean_interval} == {
        "onebit": "wilson", "dlaplace": "normal", "direct_number": "t"}


@pytest.mark.parametrize("mechanism", EXAMPLES, ids=lambda m: m.name)
def test_from_dict_takes_exactly_the_keys_each_class_declares(mechanism):
    data = mechanism.to_dict()
    assert set(data) - {"mechanism"} == type(mechanism).keys
    assert ldp.from_dict(data) == mechanism
    with pytest.raises(ValueError, match="takes exactly"):
        ldp.from_dict({**data, "extra": 1})

"""The JavaScript tests' history fixture (tests/js/history.test.mjs checks history.js's historyLoss against it) is
what the enumeration computes now (regenerate: python -m tests.ldp.js_history_fixture), and the enumeration itself
agrees with what is known in closed form: one remembered wave is the composed channel, a wave randomized afresh its
sampler's loss, and remembered waves never cost more than their permanent layer."""

import json
import math
from fractions import Fraction

import ldp
from ldp.mechanisms.remembered import Remembered
from tests.ldp.js_history_fixture import PATH, afresh, build, histories, largest_ratio, remembered


def test_the_fixture_is_current():
    assert json.loads(PATH.read_text()) == build(), "run: python -m tests.ldp.js_history_fixture"


def loss(waves, changed=False):
    return math.log(largest_ratio(waves, histories(waves, changed)))


def test_one_remembered_wave_is_the_composed_channel_and_one_fresh_wave_its_samplers_loss():
    permanent, instant = ldp.KaryRR(2.0, 3), ldp.KaryRR(1.0, 3)
    assert math.isclose(loss([remembered(permanent, instant)]), Remembered(permanent, instant).wave_epsilon)
    sampler = instant.sampler()
    assert largest_ratio([afresh(instant)], histories([afresh(instant)], False)) == Fraction(sampler["keep"],
                                                                                              sampler["other"])


def test_waves_afresh_add_up_and_remembered_ones_stay_below_the_permanent_layer():
    yes_no = ldp.QRandomizedResponse("0.75")
    assert math.isclose(loss([afresh(yes_no), afresh(yes_no)]), 2 * yes_no.effective_epsilon)
    shared = [remembered(yes_no, yes_no)] * 3
    assert Remembered(yes_no, yes_no).wave_epsilon < loss(shared) < yes_no.effective_epsilon
    # An answer changed between waves draws a new permanent response: more than the same answer.
    assert loss(shared[:2], changed=True) > loss(shared[:2])

"""The analysis script's intervals valid at any time (surveys.aggregation.scripts.python.anytime), imported
directly: the confidence sequence gives ldp's example, holds the observed rate, is wider than the fixed-n interval, and
its levels share alpha as the dashboard's do."""

import numpy as np
import pytest

from surveys.aggregation.scripts.python import anytime, intervals


def test_the_sequence_gives_ldps_binary_sequence():
    """ldp's binary_sequence's own example: 831 ones of 2435 reports, alpha 0.05, planned 2435."""
    assert anytime.sequence(831, 2435, 0.05, 2435) == pytest.approx((0.3125, 0.3708), abs=5e-5)


def test_the_sequence_holds_the_rate_and_is_wider_than_wilsons():
    low, high = anytime.sequence(300, 1000, 0.05, 1000)
    wilson = intervals.wilson(300, 1000, 0.95)
    assert low < wilson[0] < 0.3 < wilson[1] < high


def test_a_yes_no_question_is_one_stream_and_k_options_share_alpha():
    assert anytime.anytime_level(2, False, 0.95) == 0.95
    assert anytime.anytime_level(4, False, 0.95) == pytest.approx(1 - 0.05 / 4)
    assert anytime.anytime_level(2, True, 0.95) == pytest.approx(1 - 0.05 / 2)


def test_a_yes_no_questions_two_intervals_mirror_each_other():
    low, high, level = anytime.anytime_fractions([700, 300], 1000, 0.75, 0.25, False, 0.95, 1000)
    assert level == 0.95
    assert low[0] == pytest.approx(1 - high[1]) and high[0] == pytest.approx(1 - low[1])
    assert np.all((low <= [0.9, 0.1]) & ([0.9, 0.1] <= high))

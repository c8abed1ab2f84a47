"""ldp.DirectNumber: a number on lo..hi by step sent as given: its codec, registry entry, accounting,
and its exact mean with a Student t interval, checked against R's t.test and a computation by hand."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from decimal import Decimal
from statistics import mean, stdev

import numpy as np
import pytest

import ldp
import ldp.means.numeric
from ldp.mechanisms.direct_number import DirectNumber


def test_it_is_the_identity_channel_on_the_grid_outside_the_budget():
    m = ldp.make("direct_number", lo="0", hi="10", step="0.5")
    assert m == DirectNumber("0", "10", "0.5") and (m.steps, m.k) == (20, 21)
    assert (m.p, m.q_other, m.effective_epsilon, m.epsilon) == (1.0, 0.0, math.inf, math.inf)
    assert (m.randomized, m.encoding, m.parameter, m.estimates_mean) == (False, "integer", None, True)
    assert m.sampler() == {"kind": "direct", "k": 21}
    assert ldp.survey_epsilon([m, ldp.BitFlip(1.0)]) == ldp.BitFlip(1.0).effective_epsilon
    assert ldp.check_budget([m], 0.5) == 0.0


def test_it_round_trips_through_from_dict_unambiguously():
    m = DirectNumber("18", "99", "1")
    again = ldp.from_dict(json.loads(json.dumps(m.to_dict())))
    assert m.to_dict() == {"mechanism": "direct_number", "lo": "18", "hi": "99", "step": "1"}
    assert again == m and type(again) is DirectNumber
    assert type(ldp.from_dict({"mechanism": "direct", "k": 3})) is ldp.Direct
    with pytest.raises(ValueError, match="takes exactly"):
        ldp.from_dict({"mechanism": "direct_number", "lo": "0", "hi": "1", "step": "1", "epsilon": 1.0})
    with pytest.raises(ValueError, match="neither q nor epsilon"):
        ldp.make("direct_number", epsilon=1.0, lo="0", hi="1", step="1")


def test_it_describes_the_identity_and_its_grid():
    d = DirectNumber("0", "5", "1").describe()
    assert d == {
        "name": "direct_number", "label": "direct number (sent as given)",
        "parameters": {"mechanism": "direct_number", "lo": "0", "hi": "5", "step": "1"},
        "effective_epsilon": math.inf, "q_equivalent": None, "p": 1.0, "q_other": 0.0, "p_exact": "1/1",
        "q_other_exact": "0/1", "sampler": {"kind": "direct", "k": 6}, "sampler_rule": DirectNumber.sampler_rule,
        "encoding": "integer", "lo": "0", "hi": "5", "step": "1", "steps": 5}


def test_its_codec_takes_grid_indexes_only():
    m = DirectNumber("0", "10", "1")
    assert [m.encode(i) for i in (0, 7, 10)] == [0, 7, 10] and m.decode(7) == 7 and m.slots(7) == ()
    for bad in (-1, 11, 2.5, True, "3", None):
        with pytest.raises(ldp.ReportError, match="from 0 to 10"):
            m.encode(bad)
    with pytest.raises(ValueError, match="outside"):
        m.tally([11], [1])
    assert m.randomize(np.array([3, 0, 10]), np.random.default_rng(0)).tolist() == [3, 0, 10]


def test_its_mean_is_exact_with_a_t_interval_on_n_minus_1_degrees_of_freedom():
    m = DirectNumber("18", "99", "1")
    ages = [19, 23, 23, 31, 40, 40, 40, 57, 64, 88]
    values, counts = np.unique([m.index(str(a)) for a in ages], return_counts=True)
    e = m.estimate_mean(values, counts, confidence=0.9)
    se = stdev(ages) / math.sqrt(len(ages))
    t = ldp.stats.intervals.t_value(0.9, len(ages) - 1)  # checked against R below and in ldp's own tests
    assert (e.mean, e.n, e.confidence) == (mean(ages), 10, 0.9)
    assert e.std_error == pytest.approx(se, rel=1e-12)
    assert (e.ci_low, e.ci_high) == pytest.approx((mean(ages) - t * se, mean(ages) + t * se), rel=1e-12)
    assert round(t, 4) == 1.8331  # qt(0.95, 9); with n degrees of freedom it would be 1.8125


def test_its_mean_and_interval_agree_with_r_t_test(tmp_path):
    rscript = shutil.which("Rscript")
    assert rscript, "Rscript not found: `make system-deps` installs Debian's r-base-core"
    m = DirectNumber("0", "12", "0.25")
    rng = np.random.default_rng(25)
    indexes = rng.integers(0, m.steps + 1, size=37)
    values, counts = np.unique(indexes, return_counts=True)
    e = m.estimate_mean(values, counts, confidence=0.95)
    data = " ".join(str(m.value(int(i))) for i in indexes)
    done = subprocess.run([rscript, "--vanilla", "-e", f"x <- c({data.replace(' ', ', ')}); r <- t.test(x); "
                           "cat(sprintf('%.15g', c(mean(x), sd(x) / sqrt(length(x)), r$conf.int)))"],
                          capture_output=True, text=True, timeout=60, check=True)
    expected = [float(x) for x in done.stdout.split()]
    assert [e.mean, e.std_error, e.ci_low, e.ci_high] == pytest.approx(expected, rel=1e-9)


def test_its_edges_one_answer_none_and_a_constant():
    m = DirectNumber("0", "10", "1")
    none = m.estimate_mean([], [])
    assert math.isnan(none.mean) and (none.ci_low, none.ci_high, none.n) == (0.0, 10.0, 0)
    one = m.estimate_mean([4], [1])
    assert (one.mean, one.ci_low, one.ci_high) == (4.0, 0.0, 10.0) and math.isnan(one.std_error)
    same = m.estimate_mean([10], [5])
    assert (same.mean, same.std_error, same.ci_low, same.ci_high) == (10.0, 0.0, 10.0, 10.0)


def test_its_mean_does_not_lose_digits_on_a_wide_fine_grid():
    m = DirectNumber("1000000", "2000000", "1")  # steps = 10^6
    e = m.estimate_mean([999_999, 1_000_000], [3, 1])
    assert e.mean == float(Decimal("1000000") + Decimal(999_999 * 3 + 1_000_000) / 4)
    assert e.std_error == pytest.approx(0.25, rel=1e-12)  # s^2 = 0.25, n = 4: sqrt(0.25 / 4)


def test_its_planner_counts_the_spread_of_the_values_only():
    m = DirectNumber("0", "10", "1")
    assert ldp.means.numeric.worst_mean_variance(m) == 25.0
    z = ldp.stats.intervals.z_value(0.95)
    assert ldp.mean_respondents_needed(m, 0.5) == math.ceil(z**2 * 25 / 0.25)

"""ldp.Direct: a question sent as given (identity channel, infinite epsilon), and how the rest of
ldp treats it: serialization, estimates, accounting, audit."""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import numpy as np
import pytest

import ldp
from ldp.offline.audit import audit
from tests.ldp.support import wilson_cc_by_root_finding


@pytest.mark.parametrize("k", [2, 3, 64])
def test_direct_is_the_identity_channel_with_infinite_epsilon(k):
    m = ldp.make("direct", k=k)
    assert m == ldp.Direct(k) and m.k == k
    assert (m.p, m.q_other) == (1.0, 0.0)
    assert m.effective_epsilon == math.inf and m.epsilon == math.inf
    assert m.randomized is False and m.encoding == "index" and not m.unary
    assert m.sampler() == {"kind": "direct", "k": k}
    assert m.q_equivalent is None and "direct" not in ldp.YES_NO


def test_it_describes_itself_like_every_mechanism():
    d = ldp.Direct(3).describe()
    assert d["name"] == "direct" and d["parameters"] == {"mechanism": "direct", "k": 3}
    assert (d["p_exact"], d["q_other_exact"], d["encoding"]) == ("1/1", "0/1", "index")
    assert d["effective_epsilon"] == math.inf and "as given" in d["sampler_rule"]


@pytest.mark.parametrize("k", [2, 5])
def test_to_dict_round_trips_through_from_dict_and_json(k):
    m = ldp.Direct(k)
    again = ldp.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again == m and type(again) is ldp.Direct and hash(again) == hash(m)


@pytest.mark.parametrize("data, word", [
    ({"mechanism": "direct"}, "'k'"),
    ({"mechanism": "direct", "k": 3, "epsilon": 1.0}, "'epsilon'"),
    ({"mechanism": "direct", "k": 1}, "k"),
    ({"mechanism": "direct", "k": 65}, "k"),
])
def test_from_dict_rejects_wrong_keys_and_values(data, word):
    with pytest.raises(ValueError, match=word):
        ldp.from_dict(data)


@pytest.mark.parametrize("kwargs", [{"epsilon": 1.0}, {"q": "0.5"}])
def test_make_refuses_privacy_parameters_for_a_direct_question(kwargs):
    with pytest.raises(ValueError, match="neither q nor epsilon"):
        ldp.make("direct", k=3, **kwargs)


def test_randomize_returns_the_answers_as_given():
    m = ldp.Direct(4)
    values = np.random.default_rng(1).integers(0, 4, size=1000)
    reports = m.randomize(values, np.random.default_rng(2))
    np.testing.assert_array_equal(reports, values)
    assert reports is not values
    np.testing.assert_array_equal(m.counts(reports), np.bincount(values, minlength=4))
    with pytest.raises(ValueError, match="true values"):
        m.randomize(np.array([0, 4]), np.random.default_rng(0))


def test_reports_are_option_indexes():
    m = ldp.Direct(3)
    assert m.encode(2) == 2 and m.decode(2) == 2 and m.slots(1) == (1,)
    with pytest.raises(ldp.ReportError):
        m.encode(3)
    np.testing.assert_array_equal(m.tally([0, 2], [5, 7]), [5, 0, 7])


@pytest.mark.parametrize("counts, n", [([0, 10, 40], 50), ([7, 93], 100), ([500, 300, 200], 1000)])
def test_estimates_are_the_observed_fractions_with_the_continuity_corrected_wilson_interval(counts, n):
    est = ldp.Direct(len(counts)).estimate(counts, n)
    assert est.estimate == tuple(c / n for c in counts)
    for j, c in enumerate(counts):
        if 0 < c < n:
            assert est.std_error[j] == pytest.approx(math.sqrt(c / n * (1 - c / n) / n), rel=1e-12)
        else:  # where the plug-in is 0: the Wilson-centred standard error (ldp.stats.estimates)
            z2 = NormalDist().inv_cdf(0.975) ** 2
            centre = (c + z2 / 2) / (n + z2)
            assert est.std_error[j] == pytest.approx(math.sqrt(centre * (1 - centre) / (n + z2)), rel=1e-12)
        low, high = wilson_cc_by_root_finding(c, n, 0.95)  # scipy root finding, not ldp's closed form
        assert est.ci_low[j] == pytest.approx(low, abs=1e-9) and est.ci_high[j] == pytest.approx(high, abs=1e-9)


def test_the_budget_counts_randomized_questions_only():
    randomized = [ldp.BitFlip(1.0), ldp.KaryRR(0.5, 3)]
    total = math.fsum(m.effective_epsilon for m in randomized)
    survey = [randomized[0], ldp.Direct(2), randomized[1], ldp.Direct(7)]
    assert ldp.survey_epsilon(survey) == total
    assert ldp.check_budget(survey, 1.5) == total
    assert ldp.survey_epsilon([ldp.Direct(3)]) == 0.0
    with pytest.raises(ldp.BudgetExceeded):
        ldp.check_budget(survey, total - 0.01)


def test_a_direct_question_tells_the_respondent_it_is_sent_as_given():
    info = ldp.deniability(ldp.Direct(3))
    assert info["epsilon"] == math.inf and info["odds"] == math.inf and info["best_guess"] == 1.0
    assert "sent as given" in info["text"] and "not randomized" in info["text"]


def test_an_honest_direct_channel_passes_the_audit_and_a_leaky_one_is_seen():
    m = ldp.Direct(3)
    draws = 2000
    counts = [[draws if y == x else 0 for y in range(3)] for x in range(3)]
    result = audit(m.sampler(), counts, draws)
    assert result.passed and result.claimed_epsilon == math.inf
    counts[0] = [draws - 50, 50, 0]  # sometimes reports another option: not the published channel
    assert not audit(m.sampler(), counts, draws).passed

"""ldp.mechanisms.registry: channel formulas, construction errors, serialization, randomize().

The multi-select, 1-bit mean and discrete Laplace mechanisms as values: construction, the registry,
serialization, reports, description, and the rules of randomize() on small cases."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import ldp
from tests.ldp.support import describe, is_unary

LN3 = math.log(3.0)
# The sampler integers have denominators near 2**32, so p and q differ from the real-valued
# table formulas by at most a few / 2**32 ~ 1e-9.
TABLE_TOL = 1e-9


def all_mechanisms():
    return [
        ldp.QRandomizedResponse("0.5"),
        ldp.QRandomizedResponse("0.123"),
        ldp.BitFlip(LN3),
        ldp.BitFlip(0.05),
        ldp.BitFlip(10.0),
        ldp.KaryRR(1.0, 2),
        ldp.KaryRR(0.05, 64),
        ldp.KaryRR(10.0, 7),
        ldp.SymmetricUnary(1.0, 5),
        ldp.SymmetricUnary(10.0, 64),
        ldp.OptimizedUnary(2.0, 3),
        ldp.OptimizedUnary(0.05, 64),
    ]


MECHANISMS = all_mechanisms()
IDS = [describe(m) for m in MECHANISMS]


# --- formulas -------------------------------------------------------------------------


def test_q_one_half_is_epsilon_ln3_and_p_three_quarters():
    m = ldp.QRandomizedResponse("0.5")
    assert Fraction(m.keep, m.modulus) == Fraction(3, 4)
    assert m.p == 0.75
    assert m.q_other == 0.25
    assert m.epsilon == pytest.approx(LN3, rel=1e-15)
    assert m.effective_epsilon == pytest.approx(LN3, rel=1e-15)
    assert ldp.epsilon_from_q(0.5) == pytest.approx(LN3, rel=1e-15)
    assert ldp.q_from_epsilon(LN3) == pytest.approx(0.5, rel=1e-15)


def test_bitflip_at_ln3_is_the_same_channel_as_q_one_half():
    flip, qrr = ldp.BitFlip(LN3), ldp.QRandomizedResponse("0.5")
    assert flip.p == pytest.approx(qrr.p, abs=TABLE_TOL)
    assert flip.q_other == pytest.approx(qrr.q_other, abs=TABLE_TOL)
    assert flip.effective_epsilon <= LN3


@pytest.mark.parametrize("epsilon", [0.05, 0.3, 1.0, LN3, 2.5, 7.0, 10.0])
def test_q_and_epsilon_conversions_round_trip(epsilon):
    q = ldp.q_from_epsilon(epsilon)
    # q = tanh(eps / 2) <=> eps = ln((1 + q) / (1 - q)), written out independently.
    assert q == pytest.approx((math.exp(epsilon) - 1.0) / (math.exp(epsilon) + 1.0), rel=1e-12)
    assert ldp.epsilon_from_q(q) == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("q", [0.025, 0.1, 0.5, 0.9, 0.999])
def test_epsilon_from_q_round_trips_through_q_from_epsilon(q):
    assert ldp.q_from_epsilon(ldp.epsilon_from_q(q)) == pytest.approx(q, rel=1e-12)


@pytest.mark.parametrize("text", ["0.5", "0.25", "0.75", "0.9", "0.123456"])
def test_qrr_channel_is_the_table_formula_exactly(text):
    q = Fraction(text)
    m = ldp.QRandomizedResponse(text)
    assert Fraction(m.keep, m.modulus) == (1 + q) / 2
    assert Fraction(m.other, m.modulus) == (1 - q) / 2
    assert m.epsilon == pytest.approx(math.log((1 + q) / (1 - q)), rel=1e-15)


EPSILONS = [0.05, 0.5, 1.0, LN3, 2.0, 4.0, 7.5, 10.0]


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_bitflip_p_and_q_match_the_table(epsilon):
    m = ldp.BitFlip(epsilon)
    e = math.exp(epsilon)
    assert m.p == pytest.approx(e / (1 + e), abs=TABLE_TOL)
    assert m.q_other == pytest.approx(1 / (1 + e), abs=TABLE_TOL)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("k", [2, 3, 10, 64])
def test_krr_p_and_q_match_the_table(epsilon, k):
    m = ldp.KaryRR(epsilon, k)
    e = math.exp(epsilon)
    assert m.p == pytest.approx(e / (e + k - 1), abs=TABLE_TOL)
    assert m.q_other == pytest.approx(1 / (e + k - 1), abs=TABLE_TOL)
    assert m.p + (k - 1) * m.q_other == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("k", [2, 5, 64])
def test_sue_p_and_q_match_the_table(epsilon, k):
    m = ldp.SymmetricUnary(epsilon, k)
    h = math.exp(epsilon / 2)
    assert m.p == pytest.approx(h / (h + 1), abs=TABLE_TOL)
    assert m.q_other == pytest.approx(1 - m.p, abs=1e-15)
    assert m.q_other == pytest.approx(1 / (h + 1), abs=TABLE_TOL)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("k", [2, 5, 64])
def test_oue_p_and_q_match_the_table(epsilon, k):
    m = ldp.OptimizedUnary(epsilon, k)
    assert m.p == 0.5
    assert m.q_other == pytest.approx(1 / (math.exp(epsilon) + 1), abs=TABLE_TOL)


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_variance_is_the_design_formula(m):
    pi = np.linspace(0.0, 1.0, 7)
    n = 123
    lam = m.q_other + pi * (m.p - m.q_other)
    expected = lam * (1 - lam) / (n * (m.p - m.q_other) ** 2)
    np.testing.assert_allclose(m.variance(pi, n), expected, rtol=1e-12)


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_effective_epsilon_never_exceeds_the_configured_one(m):
    assert m.effective_epsilon <= m.epsilon
    assert m.effective_epsilon == pytest.approx(m.epsilon, rel=1e-6)


# --- construction and validation -------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.0, 0.049, 10.01, -1.0, math.inf, math.nan])
@pytest.mark.parametrize("build", [
    lambda e: ldp.BitFlip(e),
    lambda e: ldp.KaryRR(e, 3),
    lambda e: ldp.SymmetricUnary(e, 3),
    lambda e: ldp.OptimizedUnary(e, 3),
], ids=["bitflip", "krr", "sue", "oue"])
def test_it_rejects_epsilon_out_of_range(build, epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        build(epsilon)


def test_epsilon_range_endpoints_are_accepted():
    for epsilon in (ldp.EPSILON_MIN, ldp.EPSILON_MAX):
        assert ldp.KaryRR(epsilon, 2).epsilon == epsilon


@pytest.mark.parametrize("epsilon", [True, False, "1.0", None, [1.0]])
def test_it_rejects_non_numeric_or_bool_epsilon(epsilon):
    with pytest.raises(TypeError, match="epsilon"):
        ldp.BitFlip(epsilon)


@pytest.mark.parametrize("k", [0, 1, ldp.K_MAX + 1, -3])
@pytest.mark.parametrize("cls", [ldp.KaryRR, ldp.SymmetricUnary, ldp.OptimizedUnary])
def test_it_rejects_k_out_of_range(cls, k):
    with pytest.raises(ValueError, match="k must"):
        cls(1.0, k)


@pytest.mark.parametrize("k", [2.0, 3.5, "3", True, None])
@pytest.mark.parametrize("cls", [ldp.KaryRR, ldp.SymmetricUnary, ldp.OptimizedUnary])
def test_it_rejects_k_that_is_not_an_int(cls, k):
    with pytest.raises(TypeError, match="k must"):
        cls(1.0, k)


def test_numpy_integer_k_is_accepted_and_stored_as_int():
    m = ldp.KaryRR(1.0, np.int64(4))
    assert m.k == 4 and type(m.k) is int
    assert m == ldp.KaryRR(1.0, 4)


@pytest.mark.parametrize("q", ["0", "1", "-0.5", "1.5", 0, 1, "0.00001", "0.99999"])
def test_it_rejects_q_outside_the_open_unit_interval_or_epsilon_range(q):
    with pytest.raises(ValueError, match="q"):
        ldp.QRandomizedResponse(q)


@pytest.mark.parametrize("q", ["abc", "", "nan", None])
def test_it_rejects_q_that_is_not_a_decimal(q):
    with pytest.raises(ValueError, match="q"):
        ldp.QRandomizedResponse(q)


@pytest.mark.parametrize("q", [True, False])
def test_it_rejects_bool_q(q):
    with pytest.raises(TypeError, match="q"):
        ldp.QRandomizedResponse(q)


@pytest.mark.parametrize("q", ["inf", float("inf"), "-Infinity"])
def test_it_rejects_infinite_q_with_a_value_error(q):
    with pytest.raises(ValueError, match="q"):
        ldp.QRandomizedResponse(q)


def test_q_accepts_float_decimal_and_fraction_spellings_of_the_same_number():
    from decimal import Decimal
    spellings = ["0.5", 0.5, Decimal("0.5"), Fraction(1, 2), "0.50"]
    assert len({ldp.QRandomizedResponse(s) for s in spellings}) == 1


def test_make_builds_each_mechanism_by_name():
    assert ldp.make("qrr", q="0.5") == ldp.QRandomizedResponse("0.5")
    assert ldp.make("bitflip", epsilon=1.0) == ldp.BitFlip(1.0)
    assert ldp.make("krr", k=4, epsilon=1.0) == ldp.KaryRR(1.0, 4)
    assert ldp.make("sue", k=4, epsilon=1.0) == ldp.SymmetricUnary(1.0, 4)
    assert ldp.make("oue", k=4, epsilon=1.0) == ldp.OptimizedUnary(1.0, 4)
    assert ldp.make("direct", k=4) == ldp.Direct(4)
    assert set(ldp.MECHANISMS) == {"qrr", "bitflip", "krr", "sue", "oue", "direct", "multiselect", "onebit", "dlaplace",
                                   "direct_number"}
    assert ldp.YES_NO == {"qrr", "bitflip"}


@pytest.mark.parametrize("kwargs, word", [
    ({"name": "rappor", "epsilon": 1.0}, "mechanism"),
    ({"name": "qrr", "epsilon": 1.0}, "q"),
    ({"name": "qrr"}, "q"),
    ({"name": "bitflip", "q": "0.5"}, "epsilon"),
    ({"name": "krr", "k": 3}, "epsilon"),
    ({"name": "bitflip", "epsilon": 1.0, "k": 3}, "k = 2"),
])
def test_make_rejects_wrong_parameters_with_a_message_naming_them(kwargs, word):
    name = kwargs.pop("name")
    with pytest.raises(ValueError, match=word):
        ldp.make(name, **kwargs)


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_mechanisms_are_immutable_and_hashable(m):
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.epsilon = 2.0  # type: ignore[misc]
    assert hash(m) == hash(ldp.from_dict(m.to_dict()))


# --- serialization --------------------------------------------------------------------


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_to_dict_round_trips_through_from_dict_and_json(m):
    assert ldp.from_dict(m.to_dict()) == m
    again = ldp.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again == m
    assert again.sampler() == m.sampler()
    assert type(again) is type(m)


@pytest.mark.parametrize("q", ["0.5", "0.1", "0.05", "0.999", "0.123456789012", "0.30"])
def test_qrr_to_dict_keeps_q_as_decimal_text(q):
    m = ldp.QRandomizedResponse(q)
    assert Fraction(m.to_dict()["q"]) == Fraction(q)
    assert ldp.from_dict(json.loads(json.dumps(m.to_dict()))) == m


def test_qrr_given_a_non_decimal_fraction_round_trips():
    m = ldp.QRandomizedResponse(Fraction(1, 3))
    assert ldp.from_dict(json.loads(json.dumps(m.to_dict()))) == m


@pytest.mark.parametrize("data, word", [
    ({"mechanism": "nope", "epsilon": 1.0}, "mechanism"),
    ({"epsilon": 1.0}, "mechanism"),
    ("krr", "mechanism"),
    ({"mechanism": "bitflip", "epsilon": 1.0, "k": 2}, "'k'"),
    ({"mechanism": "krr", "epsilon": 1.0, "k": 3, "extra": 1}, "'extra'"),
    ({"mechanism": "krr", "epsilon": 1.0}, "'k'"),
    ({"mechanism": "qrr", "q": "0.5", "epsilon": 1.1}, "'epsilon'"),
])
def test_from_dict_rejects_unknown_names_and_unexpected_or_missing_keys(data, word):
    with pytest.raises(ValueError, match=word):
        ldp.from_dict(data)


def test_from_dict_validates_values_like_the_constructors():
    with pytest.raises(ValueError, match="epsilon"):
        ldp.from_dict({"mechanism": "oue", "epsilon": 20.0, "k": 3})
    with pytest.raises(TypeError, match="k"):
        ldp.from_dict({"mechanism": "krr", "epsilon": 1.0, "k": True})
    with pytest.raises(ValueError, match="q"):
        ldp.from_dict({"mechanism": "qrr", "q": "1.2"})


# --- randomize ------------------------------------------------------------------------


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_randomize_is_a_function_of_the_rng_passed_in(m):
    # Enough draws that even eps = 10 (flip probability ~5e-5 per draw) flips some reports.
    values = np.arange(200_000 // m.k) % m.k
    first = m.randomize(values, np.random.default_rng(7))
    again = m.randomize(values, np.random.default_rng(7))
    other = m.randomize(values, np.random.default_rng(8))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_randomize_leaves_the_global_random_states_alone():
    np.random.seed(123)
    random.seed(123)
    expected = (np.random.random(), random.random())
    np.random.seed(123)
    random.seed(123)
    for m in MECHANISMS:
        m.randomize(np.arange(200) % m.k, np.random.default_rng(1))
    assert (np.random.random(), random.random()) == expected


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_randomize_output_has_the_right_shape_and_domain(m):
    values = np.random.default_rng(3).integers(0, m.k, size=1000)
    reports = m.randomize(values, np.random.default_rng(4))
    if is_unary(m):
        assert reports.shape == (1000, m.k)
        assert set(np.unique(reports)) <= {0, 1}
    else:
        assert reports.shape == (1000,)
        assert np.issubdtype(reports.dtype, np.integer)
        assert reports.min() >= 0 and reports.max() < m.k
    counts = m.counts(reports)
    assert counts.shape == (m.k,)
    assert counts.sum() == (reports.sum() if is_unary(m) else 1000)


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_randomize_accepts_an_empty_panel(m):
    reports = m.randomize(np.array([], dtype=np.int64), np.random.default_rng(0))
    assert len(reports) == 0
    np.testing.assert_array_equal(m.counts(reports), np.zeros(m.k))


@pytest.mark.parametrize("values", [[0, 1, 5], [-1, 0], [[0, 1], [1, 0]], [0.0, 1.0]])
def test_randomize_rejects_values_outside_the_options(values):
    m = ldp.KaryRR(1.0, 5)
    with pytest.raises(ValueError, match="true values"):
        m.randomize(np.asarray(values), np.random.default_rng(0))


class ScriptedRng:
    """Stands in for a Generator: hands out the given words, records the range asked for."""

    def __init__(self, words):
        self.words = np.asarray(words, dtype=np.int64)
        self.highs = []

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        assert low == 0 and not endpoint
        self.highs.append(high)
        return self.words.reshape(size).astype(dtype)


@pytest.mark.parametrize("m", [ldp.KaryRR(1.0, 5), ldp.QRandomizedResponse("0.5"), ldp.KaryRR(3.0, 64)],
                         ids=describe)
def test_kary_randomize_follows_the_published_browser_rule(m):
    """U < a keeps the answer, otherwise the ((U - a) div b)-th other option in increasing order."""
    a, b, big_m = m.keep, m.other, m.modulus
    edges = {0, a - 1, a, a + b - 1, a + b, a + 2 * b - 1, big_m - b, big_m - 1}
    words = sorted(w for w in edges if 0 <= w < big_m)
    for truth in {0, 1, m.k // 2, m.k - 1}:
        rng = ScriptedRng(words)
        reports = m.randomize(np.full(len(words), truth), rng)
        assert rng.highs == [big_m]
        others = [option for option in range(m.k) if option != truth]
        expected = [truth if u < a else others[(u - a) // b] for u in words]
        assert reports.tolist() == expected


@pytest.mark.parametrize("m", [ldp.SymmetricUnary(1.0, 4), ldp.OptimizedUnary(2.0, 4)], ids=describe)
def test_unary_randomize_follows_the_published_browser_rule(m):
    """Bit j is 1 when U_j < a1 (j is the answer) or U_j < a0 (any other bit)."""
    a1, a0 = m.one_if_true, m.one_if_false
    words = np.array([[0, a0 - 1, a0, a1 - 1], [a1, a0, a0 - 1, m.modulus - 1]])
    truths = np.array([2, 0])
    rng = ScriptedRng(words)
    reports = m.randomize(truths, rng)
    assert rng.highs == [m.modulus]
    expected = [[int(u < (a1 if j == t else a0)) for j, u in enumerate(row)]
                for row, t in zip(words, truths, strict=True)]
    assert reports.tolist() == expected


# Per-cell tests at alpha = 1e-7: about 60 tests in this group, so the family-wise chance of a
# false alarm for a correct channel is < 1e-5; with 40,000 draws a cell probability off by
# 0.015 (about 5.5 binomial standard errors at p = 0.5 with z = 5.3 for 1e-7) is caught.
CHANNEL_ALPHA = 1e-7
CHANNEL_DRAWS = 40_000


@pytest.mark.parametrize("m", [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(2.0), ldp.KaryRR(1.0, 5),
                               ldp.KaryRR(3.0, 12)], ids=describe)
def test_one_of_k_reports_follow_p_and_q(m):
    rng = np.random.default_rng(20240101 + m.k)
    for truth in range(m.k):
        reports = m.randomize(np.full(CHANNEL_DRAWS, truth), rng)
        observed = np.bincount(reports, minlength=m.k)
        expected = np.full(m.k, m.q_other)
        expected[truth] = m.p
        result = stats.chisquare(observed, CHANNEL_DRAWS * expected)
        assert result.pvalue > CHANNEL_ALPHA, (truth, observed, CHANNEL_DRAWS * expected)


@pytest.mark.parametrize("m", [ldp.SymmetricUnary(1.0, 4), ldp.OptimizedUnary(2.0, 4),
                               ldp.OptimizedUnary(0.5, 6)], ids=describe)
def test_unary_bits_follow_p_and_q_independently(m):
    rng = np.random.default_rng(777 + m.k)
    for truth in (0, m.k - 1):
        bits = m.randomize(np.full(CHANNEL_DRAWS, truth), rng)
        for j in range(m.k):
            ones = int(bits[:, j].sum())
            expected = m.p if j == truth else m.q_other
            assert stats.binomtest(ones, CHANNEL_DRAWS, expected).pvalue > CHANNEL_ALPHA, (truth, j, ones)
        # Two bits that were both 0 are 1 together with probability q^2 (independent bits).
        a, b = [j for j in range(m.k) if j != truth][:2]
        both = int((bits[:, a] & bits[:, b]).sum())
        assert stats.binomtest(both, CHANNEL_DRAWS, m.q_other * m.q_other).pvalue > CHANNEL_ALPHA


# --- estimate() through the mechanism ---------------------------------------------------


def test_kary_estimate_rejects_counts_that_do_not_add_up_to_n():
    with pytest.raises(ValueError, match="add up to n"):
        ldp.KaryRR(1.0, 3).estimate([3, 3, 3], 10)
    with pytest.raises(ValueError, match="add up to n"):
        ldp.BitFlip(1.0).estimate([3, 3], 5)


def test_unary_estimate_rejects_counts_above_n():
    with pytest.raises(ValueError, match="between 0 and n"):
        ldp.OptimizedUnary(1.0, 3).estimate([3, 11, 0], 10)


@pytest.mark.parametrize("m, counts, n", [
    (ldp.KaryRR(1.0, 5), [5, 5], 10),
    (ldp.SymmetricUnary(1.0, 5), [1, 2, 3], 10),
])
def test_estimate_rejects_a_count_vector_of_the_wrong_length(m, counts, n):
    with pytest.raises(ValueError, match="counts"):
        m.estimate(counts, n)


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_mechanism_estimate_uses_its_own_channel(m):
    n = 400
    counts = np.random.default_rng(5).multinomial(n, np.full(m.k, 1 / m.k)) if not is_unary(m) \
        else np.random.default_rng(5).integers(0, n + 1, size=m.k)
    est = m.estimate(counts, n)
    np.testing.assert_allclose(est.estimate, (counts / n - m.q_other) / (m.p - m.q_other), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("options, word", [({"confidence": 1.2}, "confidence"),
                                           ({"interval": "wald"}, "interval")])
def test_mechanism_estimate_rejects_bad_options(options, word):
    with pytest.raises(ValueError, match=word):
        ldp.OptimizedUnary(1.0, 3).estimate([1, 2, 3], 10, **options)
    with pytest.raises(ValueError, match=word):
        ldp.KaryRR(1.0, 3).estimate([5, 3, 2], 10, **options)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64])
def test_randomize_accepts_integer_answers_of_any_common_dtype(dtype):
    m = ldp.KaryRR(1.0, 3)
    reports = m.randomize(np.array([0, 1, 2] * 50, dtype=dtype), np.random.default_rng(0))
    assert np.issubdtype(reports.dtype, np.integer)
    assert m.counts(reports).sum() == 150


def test_randomize_accepts_uint64_answers():
    m = ldp.KaryRR(1.0, 3)
    reports = m.randomize(np.array([0, 1, 2] * 50, dtype=np.uint64), np.random.default_rng(0))
    assert np.issubdtype(reports.dtype, np.integer)
    assert m.counts(reports).sum() == 150


# --- the multi-select, 1-bit mean and discrete Laplace mechanisms -----------------------

CASES = [ldp.MultiSelect(1.0, 4), ldp.MultiSelect(2.0, 6, at_most=2), ldp.OneBitMean(1.0, "0", "10", "0.5"),
       ldp.OneBitMean(0.05, "-3", "3", "1"), ldp.DiscreteLaplace(1.0, "0", "100", "1"),
       ldp.DiscreteLaplace(10.0, "1", "5", "0.25")]
CASE_IDS = [repr(m) for m in CASES]


@pytest.mark.parametrize("m", CASES, ids=CASE_IDS)
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

"""ldp.offline.audit and ldp.offline.cells for the multi-select, 1-bit mean and discrete Laplace samplers."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import ldp
from ldp.offline.audit import audit, audit_truths, report_edges, report_probabilities, tabulate
from ldp.offline.cells import bit_pairs, layout

MECHANISMS = [ldp.MultiSelect(2.0, 4), ldp.MultiSelect(3.0, 6, at_most=2), ldp.MultiSelect(3.0, 12),
              ldp.OneBitMean(1.5, "0", "10", "1"), ldp.DiscreteLaplace(1.0, "0", "10", "1"),
              ldp.DiscreteLaplace(6.0, "0", "2", "1"), ldp.DiscreteLaplace(2.0, "0", "5000", "1")]
IDS = [f"{m.name}-{m.epsilon:g}-{m.k}" for m in MECHANISMS]
DRAWS = 40_000


def draw(m, truth: int, draws: int, rng) -> dict[int, int]:
    """Histogram of report values (bitmask for multi-select, r for dlaplace) for one true answer."""
    if m.name == "multiselect":
        bits = np.array([[(truth >> j) & 1 for j in range(m.k)]] * draws)
        values = m.encode_many(m.randomize(bits, rng))
    else:
        values = np.asarray(m.randomize(np.full(draws, truth), rng), dtype=np.int64)
    found, counts = np.unique(values, return_counts=True)
    return dict(zip(found.tolist(), counts.tolist(), strict=True))


def table(m, rng, draws=DRAWS, sampler_of=None) -> dict[int, list[int]]:
    sampler = (sampler_of or m).sampler()
    return {x: tabulate(sampler, draw(m, x, draws, rng)) for x in audit_truths(sampler)}


@pytest.mark.slow
@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_a_faithful_randomizer_passes_with_a_bound_below_its_claim(m):
    result = audit(m.sampler(), table(m, np.random.default_rng(21)), DRAWS)
    assert result.passed and result.failures == ()
    assert 0 < result.epsilon_lower_bound <= result.claimed_epsilon == pytest.approx(m.effective_epsilon)


@pytest.mark.slow
@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_a_randomizer_leaking_more_than_it_claims_fails(m):
    kwargs = {"k": m.k, "at_most": m.at_most} if m.name == "multiselect" else \
        {"lo": m.lo, "hi": m.hi, "step": m.step}
    leaky = type(m)(min(m.epsilon * 1.5, ldp.EPSILON_MAX), **kwargs)
    result = audit(m.sampler(), table(leaky, np.random.default_rng(22), sampler_of=m), DRAWS)
    assert not result.passed and result.failures


def test_joint_patterns_catch_correlated_bits_that_per_bit_counts_miss():
    """One word decides every bit (all kept or all flipped): each bit's rate is right, the patterns are not."""
    m = ldp.MultiSelect(1.0, 4)
    sampler, rng = m.sampler(), np.random.default_rng(5)
    rows = {}
    for x in audit_truths(sampler):
        truth = np.array([(x >> j) & 1 for j in range(4)])
        keep = rng.integers(0, m.modulus, size=DRAWS) < m.keep
        reports = np.where(keep[:, None], truth, 1 - truth)
        values, counts = np.unique(m.encode_many(reports), return_counts=True)
        rows[x] = tabulate(sampler, dict(zip(values.tolist(), counts.tolist(), strict=True)))
        ones = [sum(c for v, c in zip(values, counts, strict=True) if (v >> j) & 1) for j in range(4)]
        rates = [ldp.stats.intervals.clopper_pearson(o, DRAWS, 1 - 1e-6 / 16) for o in ones]
        expected = [m.p if bit else m.q_other for bit in truth]
        assert all(low <= e <= high for (low, high), e in zip(rates, expected, strict=True))  # marginals pass
    assert not audit(sampler, rows, DRAWS).passed


@pytest.mark.parametrize("m", MECHANISMS, ids=IDS)
def test_cell_probabilities_add_up_to_one_and_cover_every_report(m):
    sampler = m.sampler()
    for x in audit_truths(sampler):
        row = report_probabilities(sampler, x)
        if layout(sampler) == "pairs":  # the four patterns of each pair of bits add up to one
            assert len(row) == 4 * len(bit_pairs(m.k)) == 2 * m.k * (m.k - 1)
            assert [math.fsum(row[c:c + 4]) for c in range(0, len(row), 4)] == pytest.approx([1.0] * (len(row) // 4))
        else:
            assert math.fsum(row) == pytest.approx(1.0, abs=1e-12)
            edges = report_edges(sampler)
            assert len(row) == len(edges) - 1 and edges == sorted(set(edges))
    if m.name == "dlaplace":
        assert report_edges(sampler)[0] == -m.bound and report_edges(sampler)[-1] == m.steps + m.bound + 1
        assert len(report_edges(sampler)) < 200


def test_multiselect_pattern_probabilities_are_the_exact_products():
    m = ldp.MultiSelect(2.0, 3, at_most=1)
    sampler = m.sampler()
    p = Fraction(m.keep, m.modulus)
    for x in (0, 1, 2, 4):
        row = report_probabilities(sampler, x)
        for y, bits in enumerate(itertools.product((0, 1), repeat=3)):
            pattern = sum(b << j for j, b in enumerate(bits))
            flips = bin(pattern ^ x).count("1")
            assert row[pattern] == pytest.approx(float(p ** (3 - flips) * (1 - p) ** flips), rel=1e-12), y
    with pytest.raises(ValueError, match="at_most"):
        report_probabilities(sampler, 3)


def test_dlaplace_cells_are_sums_of_the_two_sided_geometric_pmf():
    m = ldp.DiscreteLaplace(3.0, "0", "2", "1")
    sampler = m.sampler()
    a = math.exp(-m.scale_den / m.scale_num)

    def pmf(truth, r):
        if r == -m.bound:
            return sum((1 - a) / (1 + a) * a ** abs(z) for z in range(-m.bound - truth - 400, -m.bound - truth + 1))
        if r == m.steps + m.bound:
            return sum((1 - a) / (1 + a) * a ** abs(z) for z in range(m.steps + m.bound - truth, 400 + m.bound))
        return (1 - a) / (1 + a) * a ** abs(r - truth)

    edges = report_edges(sampler)
    for truth in range(3):
        cells = zip(edges, edges[1:], strict=False)
        expected = [math.fsum(pmf(truth, r) for r in range(low, high)) for low, high in cells]
        assert report_probabilities(sampler, truth) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_tabulate_bins_reports_and_refuses_impossible_ones():
    m = ldp.DiscreteLaplace(1.0, "0", "10", "1")
    sampler = m.sampler()
    edges = report_edges(sampler)
    row = tabulate(sampler, {-m.bound: 2, 0: 5, 10 + m.bound: 1})
    cell_of_zero = max(c for c, edge in enumerate(edges) if edge <= 0)
    assert sum(row) == 8 and row[0] == 2 and row[-1] == 1 and row[cell_of_zero] == 5
    with pytest.raises(ValueError, match="outside"):
        tabulate(sampler, {11 + m.bound: 1})
    twelve = ldp.MultiSelect(1.0, 12).sampler()
    assert tabulate(twelve, {0b101: 3, 0b100: 1}, bits=True) == [3, 0, 4] + [0] * 9
    pairs = tabulate(twelve, {0b101: 3, 0b100: 1})
    assert pairs[:12] == [1, 3, 0, 0, 0, 0, 1, 3, 1, 3, 0, 0]  # bits (0, 1), (0, 2), (0, 3): 00, 10, 01, 11
    assert pairs[4 * bit_pairs(12).index((1, 2)):][:4] == [0, 0, 4, 0] and sum(pairs) == 4 * 66
    with pytest.raises(ValueError, match="outside"):
        tabulate(twelve, {1 << 12: 1})


def test_audit_truths_include_the_ends_and_a_pair_of_answers_d_bits_apart():
    assert audit_truths(ldp.OneBitMean(1.0, "0", "7", "1").sampler()) == [0, 3, 7]
    for k, at_most in [(4, None), (5, 2), (5, 3), (6, 1)]:
        m = ldp.MultiSelect(1.0, k, at_most)
        _, first, second = audit_truths(m.sampler())
        assert bin(first ^ second).count("1") == m.hamming
        assert at_most is None or max(bin(first).count("1"), bin(second).count("1")) <= at_most

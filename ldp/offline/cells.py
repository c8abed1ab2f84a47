"""The expected report distribution of every sampler kind, over cells an audit can count.

A cell is a set of reports whose probability under each true answer follows from the published
integers. For most kinds the cells partition one integer report value: the option index (grr,
direct), the bit (onebit), or ranges of r (dlaplace: single values near the grid, wider ranges
further out, and the two tails). A report of k bits (unary encodings, multi-select) is counted on
joint bit patterns, so that a randomizer whose bits are each right but correlated fails: all 2^k
patterns (the report's bitmask) when k <= JOINT_BITS_MAX_K, else, for every pair of bits i < j, the
four patterns of (bit i, bit j) (cells that overlap: each is its own binomial event). With
`bits=True` they are counted bit by bit instead (how often each bit is 1): a marginal test only,
blind to correlation between bits. Every cell's probability is computed from the sampler's integers,
with the bits randomized independently given the truth, as the published mechanisms randomize them.
Truths are option indexes, grid indexes, or multi-select bitmasks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from ..mechanisms.registry import by_sampler, sampler_channel
from ..mechanisms.sampling import hamming

JOINT_BITS_MAX_K = 6
TAIL = 1e-4  # dlaplace: about this much probability lies beyond the finely cut window on each side
Layout = Literal["values", "patterns", "pairs", "bits"]


def layout(sampler: dict[str, Any], bits: bool = False) -> Layout:
    """How reports are counted: report values, all joint bit patterns, patterns of pairs of bits, or bits.

    >>> [layout({"kind": "unary", "k": k}) for k in (6, 7)], layout({"kind": "unary", "k": 6}, bits=True)
    (['patterns', 'pairs'], 'bits')
    """
    if by_sampler(sampler).encoding != "bits":
        return "values"
    if bits:
        return "bits"
    return "patterns" if int(sampler["k"]) <= JOINT_BITS_MAX_K else "pairs"


def bit_cells(sampler: dict[str, Any], bits: bool = False) -> bool:
    """True when the cells are the k bits (each counted when it is 1) rather than events of whole reports."""
    return layout(sampler, bits) == "bits"


def bit_pairs(k: int) -> list[tuple[int, int]]:
    """The pairs of bits (i, j), i < j, in the order of the pair cells: cell 4 * n + a + 2 b is bits (i, j) = (a, b)."""
    return list(itertools.combinations(range(k), 2))


def cell_name(sampler: dict[str, Any], cell: int, bits: bool = False) -> str:
    """A cell in words, for failures: "report 2", "bit 3", "bits 1,0,1", "bits (0, 4) = (1, 0)", "cell 7".

    >>> cell_name({"kind": "unary", "k": 8}, 5), cell_name({"kind": "unary", "k": 3}, 5)
    ('bits (0, 2) = (1, 0)', 'bits 1,0,1')
    """
    found = layout(sampler, bits)
    if found == "bits":
        return f"bit {cell}"
    if found == "patterns":
        return "bits " + ",".join(str((cell >> j) & 1) for j in range(sampler["k"]))
    if found == "pairs":
        i, j = bit_pairs(sampler["k"])[cell // 4]
        return f"bits ({i}, {j}) = ({cell % 2}, {cell // 2 % 2})"
    return f"report {cell}" if one_index_of_k(sampler) else f"cell {cell}"


def one_index_of_k(sampler: dict[str, Any]) -> bool:
    """A sampler whose report is one option index of k (randomized response, direct)."""
    cls = by_sampler(sampler)
    return cls.one_of_k and cls.encoding == "index"


def audit_truths(sampler: dict[str, Any]) -> list[int]:
    """The true answers worth drawing from: every option; for numeric kinds the two ends of the grid and
    its middle; for multi-select no option, and two answers as far apart as allowed (d bits).

    >>> audit_truths({"kind": "multiselect", "k": 5, "at_most": 2, "modulus": 2**32, "keep": 3 * 2**30})
    [0, 3, 12]
    """
    kind = sampler["kind"]
    if by_sampler(sampler).estimates_mean:
        steps = sampler["steps"]
        return sorted({0, steps // 2, steps})
    if kind == "multiselect":
        k, at_most = sampler["k"], sampler["at_most"]
        limit = k if at_most is None else at_most
        second = min(limit, k // 2)
        first = min(limit, k - second)
        assert first + second == hamming(k, at_most)
        return [0, (1 << first) - 1, ((1 << second) - 1) << first]
    return list(range(sampler["k"]))


def report_edges(sampler: dict[str, Any]) -> list[int]:
    """Cell c holds the report values in [edges[c], edges[c + 1]); ValueError for pair cells.

    >>> report_edges({"kind": "onebit", "steps": 4, "modulus": 8, "keep": 6})
    [0, 1, 2]
    """
    kind, found = sampler["kind"], layout(sampler)
    if found in ("bits", "pairs"):
        raise ValueError(f"the cells of a {kind} sampler with k = {sampler['k']} are pairs of its bits, "
                         "not report values")
    if kind == "onebit":
        return [0, 1, 2]
    if found == "patterns":
        return list(range((1 << sampler["k"]) + 1))
    if kind == "dlaplace":
        return _laplace_edges(sampler)
    return list(range(sampler["k"] + 1))


def _laplace_edges(sampler: dict[str, Any]) -> list[int]:
    steps, bound = sampler["steps"], sampler["bound"]
    scale = sampler["scale_num"] / sampler["scale_den"]
    window = min(bound, math.ceil(scale * math.log(1 / TAIL)))
    width = max(1, math.floor(scale / 4))
    inner = list(range(-window, steps + window + 1, width)) + [steps + window + 1]
    edges = sorted({-bound, *inner, steps + bound + 1})
    return [e for e in edges if -bound <= e <= steps + bound + 1]


def report_probabilities(sampler: dict[str, Any], truth: int, bits: bool = False) -> list[float]:
    """P(report in cell c | truth) for each cell c (for bit cells: P(bit c = 1 | truth)).

    >>> [round(x, 4) for x in report_probabilities({"kind": "onebit", "steps": 4, "modulus": 8, "keep": 6}, 1)]
    [0.625, 0.375]
    >>> report_probabilities({"kind": "unary", "k": 2, "modulus": 4, "one_if_true": 3, "one_if_false": 1}, 0)
    [0.1875, 0.5625, 0.0625, 0.1875]
    """
    kind = sampler["kind"]
    _check_truth(sampler, truth)
    if kind == "dlaplace":
        return _laplace_probabilities(sampler, truth)
    keep, other, modulus = sampler_channel(sampler)
    p, q = keep / modulus, other / modulus
    if kind == "onebit":
        one = q + truth / sampler["steps"] * (p - q)
        return [1.0 - one, one]
    if by_sampler(sampler).encoding == "bits":
        return _bit_probabilities(sampler, truth, bits)
    return [p if y == truth else q for y in range(sampler["k"])]


def _bit_probabilities(sampler: dict[str, Any], truth: int, bits: bool) -> list[float]:
    """Cells of a k-bit report: bit j is 1 with probability one[j], independently of the other bits."""
    k = sampler["k"]
    if sampler["kind"] == "unary":  # one_if_true for the truth's bit, one_if_false for the others
        truth = 1 << truth
        one_if_true, one_if_false = sampler["one_if_true"], sampler["one_if_false"]
    else:  # a bit is kept (reported as it is) with probability keep / modulus, else flipped
        one_if_true, one_if_false = sampler["keep"], sampler["modulus"] - sampler["keep"]
    m = sampler["modulus"]
    one = [(one_if_true if (truth >> j) & 1 else one_if_false) for j in range(k)]
    chance = [[(m - a) / m, a / m] for a in one]  # chance[j][b]: P(bit j = b), each from the integers
    found = layout(sampler, bits)
    if found == "bits":
        return [c[1] for c in chance]
    if found == "pairs":
        return [chance[i][a] * chance[j][b] for i, j in bit_pairs(k) for b in (0, 1) for a in (0, 1)]
    return [math.prod(chance[j][(pattern >> j) & 1] for j in range(k)) for pattern in range(1 << k)]


def _check_truth(sampler: dict[str, Any], truth: int) -> None:
    kind = sampler["kind"]
    if by_sampler(sampler).estimates_mean:
        limit = sampler["steps"] + 1
    elif kind == "multiselect":
        limit = 1 << sampler["k"]
        if sampler["at_most"] is not None and 0 <= truth < limit and bin(truth).count("1") > sampler["at_most"]:
            raise ValueError(f"truth {truth} ticks more than at_most = {sampler['at_most']} options")
    else:
        limit = sampler["k"]
    if not 0 <= truth < limit:
        raise ValueError(f"truth must lie in [0, {limit}), got {truth}")


def _laplace_probabilities(sampler: dict[str, Any], truth: int) -> list[float]:
    """Cells of r = clamp(truth + Z) with P(Z <= z) = a^(-z) / (1 + a) for z < 0 and P(Z > z) = a^(z+1) / (1 + a)
    for z >= 0, a = exp(-s / t); each cell from the tail it lies in, so no probability is a difference near 1."""
    steps, bound = sampler["steps"], sampler["bound"]
    x = sampler["scale_den"] / sampler["scale_num"]
    a = math.exp(-x)

    def below(r: int) -> float:  # P(clamped report <= r)
        if r < -bound:
            return 0.0
        if r >= steps + bound:
            return 1.0
        z = r - truth
        return math.exp(x * z) / (1 + a) if z < 0 else 1.0 - math.exp(-x * (z + 1)) / (1 + a)

    def above(r: int) -> float:  # P(clamped report > r)
        if r >= steps + bound:
            return 0.0
        if r < -bound:
            return 1.0
        z = r - truth
        return math.exp(-x * (z + 1)) / (1 + a) if z >= 0 else 1.0 - math.exp(x * z) / (1 + a)

    edges = report_edges(sampler)
    return [below(high - 1) - below(low - 1) if high - 1 < truth else above(low - 1) - above(high - 1)
            for low, high in zip(edges, edges[1:], strict=False)]


def tabulate(sampler: dict[str, Any], histogram: Mapping[int, int], bits: bool = False) -> list[int]:
    """Counts per cell from a histogram {report value: count} (the bitmask for k-bit reports).

    >>> tabulate({"kind": "grr", "k": 3, "modulus": 7, "keep": 3, "other": 2}, {0: 5, 2: 1})
    [5, 0, 1]
    """
    found = layout(sampler, bits)
    if found in ("bits", "pairs"):
        values = np.array(list(histogram), dtype=np.int64)
        counts = np.array(list(histogram.values()), dtype=np.int64)
        k = sampler["k"]
        if values.size and not (0 <= values.min() and values.max() < 1 << k):
            raise ValueError(f"report {values.max()} is outside what the sampler can produce")
        bit = [(values >> j) & 1 for j in range(k)]
        if found == "bits":
            return [int(counts[b == 1].sum()) for b in bit]
        return [int(n) for i, j in bit_pairs(k)
                for n in np.bincount(bit[i] + 2 * bit[j], weights=counts, minlength=4).astype(np.int64)]
    edges = report_edges(sampler)
    row = [0] * (len(edges) - 1)
    for value, count in histogram.items():
        if not edges[0] <= value < edges[-1]:
            raise ValueError(f"report {value} is outside what the sampler can produce")
        low, high = 0, len(edges) - 1
        while high - low > 1:  # the cell whose edges enclose the value
            middle = (low + high) // 2
            low, high = (middle, high) if edges[middle] <= value else (low, middle)
        row[low] += count
    return row

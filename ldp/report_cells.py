"""The expected report distribution of every sampler kind, over cells an audit can count.

A cell is a set of reports whose probability under each true answer follows from the published
integers. For most kinds the cells partition one integer report value: the option index (grr,
direct), the bit (onebit), the bitmask (multiselect with k <= JOINT_BITS_MAX_K, so joint bit patterns
are tested, not only each bit), or ranges of r (dlaplace: single values near the grid, wider ranges
further out, and the two tails). For unary encodings and larger multi-selects the cells are the k bits,
counted by how often each is 1. Truths are option indexes, grid indexes, or multi-select bitmasks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .exact import hamming, sampler_channel

JOINT_BITS_MAX_K = 8
TAIL = 1e-4  # dlaplace: about this much probability lies beyond the finely cut window on each side


def bit_cells(sampler: dict[str, Any]) -> bool:
    """True when the cells are the k bits (each counted when it is 1) rather than report values."""
    kind, k = str(sampler["kind"]), int(sampler.get("k", 0))
    return kind == "unary" or (kind == "multiselect" and k > JOINT_BITS_MAX_K)


def audit_truths(sampler: dict[str, Any]) -> list[int]:
    """The true answers worth drawing from: every option; for numeric kinds the two ends of the grid and
    its middle; for multi-select no option, and two answers as far apart as allowed (d bits).

    >>> audit_truths({"kind": "multiselect", "k": 5, "at_most": 2, "modulus": 2**32, "keep": 3 * 2**30})
    [0, 3, 12]
    """
    kind = sampler["kind"]
    if kind in ("onebit", "dlaplace"):
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
    """Cell c holds the report values in [edges[c], edges[c + 1]); ValueError for bit cells.

    >>> report_edges({"kind": "onebit", "steps": 4, "modulus": 8, "keep": 6})
    [0, 1, 2]
    """
    kind = sampler["kind"]
    if bit_cells(sampler):
        raise ValueError(f"the cells of a {kind} sampler are its bits, not report values")
    if kind == "onebit":
        return [0, 1, 2]
    if kind == "multiselect":
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


def report_probabilities(sampler: dict[str, Any], truth: int) -> list[float]:
    """P(report in cell c | truth) for each cell c (for bit cells: P(bit c = 1 | truth)).

    >>> [round(x, 4) for x in report_probabilities({"kind": "onebit", "steps": 4, "modulus": 8, "keep": 6}, 1)]
    [0.625, 0.375]
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
    if kind == "multiselect":
        truth_bits = [(truth >> j) & 1 for j in range(sampler["k"])]
        if bit_cells(sampler):
            return [p if bit else q for bit in truth_bits]
        agree = [p, 1.0 - p]  # P(reported bit = true bit), P(flipped)
        return [math.prod(agree[((pattern >> j) & 1) ^ bit] for j, bit in enumerate(truth_bits))
                for pattern in range(1 << sampler["k"])]
    return [p if y == truth else q for y in range(sampler["k"])]


def _check_truth(sampler: dict[str, Any], truth: int) -> None:
    kind = sampler["kind"]
    if kind in ("onebit", "dlaplace"):
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


def tabulate(sampler: dict[str, Any], histogram: Mapping[int, int]) -> list[int]:
    """Counts per cell from a histogram {report value: count} (bitmask for multi-select reports).

    >>> tabulate({"kind": "grr", "k": 3, "modulus": 7, "keep": 3, "other": 2}, {0: 5, 2: 1})
    [5, 0, 1]
    """
    if bit_cells(sampler):
        return [sum(c for value, c in histogram.items() if (value >> j) & 1) for j in range(sampler["k"])]
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

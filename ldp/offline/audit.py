"""Auditing a randomizer from outside: do its reports follow the published channel?

Given a published sampler (the integers of `Mechanism.sampler()`) and, for each true
answer x, the counts of reports observed over `draws` runs of the randomizer, we check:

* conformity: every cell's count is consistent with its published probability, by an
  exact two-sided binomial test (the probability lies in the Clopper-Pearson interval),
  with the family-wise false-alarm rate `alpha` split over all cells (Bonferroni);
* an empirical lower bound on epsilon that holds with probability 1 - alpha: the largest
  ln(L[c|x] / U[c|x']) over cells c and audited truths x, x', where L and U are Clopper-Pearson
  bounds. Any event's probability ratio between two truths is at most e^epsilon, whatever the
  randomizer does, so this holds without assumptions; a randomizer that leaks more than it claims
  shows a bound above the claimed epsilon.

A report of k bits (unary encodings, multi-select) is counted on joint bit patterns (`ldp.offline.cells`:
all 2^k for k <= JOINT_BITS_MAX_K, the four patterns of every pair of bits for larger k), so that bits
that are each right but correlated fail, and the cells (bit x' = 0, bit x = 1) give the unary bound
directly. With `bits=True` the bits are counted one by one, a marginal test blind to correlation; the
unary bound is then ln(L1 / U0) + ln((1 - U0) / (1 - L1)), which assumes what the published channel
does: each bit randomized independently given the truth, so the loss is the product of the bit-x and
bit-x' ratios (the second factor, bit x' under the same two truths, stood for by the bit-x figures by
symmetry). A randomizer that breaks that assumption can pass the bitwise test: use the joint one.

The multi-select, 1-bit mean and discrete Laplace samplers are audited for the true answers
`ldp.offline.cells` suggests (`audit_truths`): a row per true answer, a count per cell (report
values, ranges of them, or the bit patterns above; `tabulate` makes a row from a histogram).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..mechanisms.registry import sampler_channel, sampler_epsilon
from ..stats.intervals import clopper_pearson
from .cells import audit_truths, bit_cells, cell_name, one_index_of_k, report_edges, report_probabilities, tabulate

__all__ = ["AuditResult", "audit", "audit_truths", "cell_probabilities", "report_edges", "report_probabilities",
           "sampler_epsilon", "tabulate"]

@dataclass(frozen=True)
class AuditResult:
    claimed_epsilon: float
    epsilon_lower_bound: float
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.failures and self.epsilon_lower_bound <= self.claimed_epsilon


def cell_probabilities(sampler: dict[str, Any]) -> list[list[float]]:
    """P[x][y]: probability of report y (grr, direct) or of bit y being 1 (unary) given truth x."""
    same_count, other_count, m = sampler_channel(sampler)
    same, other = same_count / m, other_count / m
    k = sampler["k"]
    return [[same if y == x else other for y in range(k)] for x in range(k)]


def audit(sampler: dict[str, Any], counts: Mapping[int, Sequence[int]] | Sequence[Sequence[int]],
          draws: int | dict[int, int], alpha: float = 1e-6, cells_in_family: int | None = None,
          bits: bool = False) -> AuditResult:
    """Test observed counts against the published sampler.

    `counts` is a table (row x: counts per cell for true answer x over `draws` runs), or a
    mapping {x: row} for some of the true answers; `draws` is one number or a mapping
    {x: runs}. `cells_in_family` is the number of cells the Bonferroni split is over
    (default: the cells given here); pass the total when auditing several samplers together.
    A row holds one count per report for grr and direct samplers, else one per cell of
    `ldp.offline.cells` (joint bit patterns for unary and multi-select reports, or with `bits`
    one per bit); `tabulate` makes it from a histogram of reports, `audit_truths` suggests the rows.
    """
    rows = dict(counts) if isinstance(counts, Mapping) else dict(enumerate(counts))
    runs = draws if isinstance(draws, dict) else {x: draws for x in rows}
    expected = _expected_rows(sampler, rows, bits)
    level = 1.0 - alpha / (cells_in_family or sum(len(row) for row in expected.values()))
    bounds = {x: [clopper_pearson(int(c), runs[x], level) for c in row] for x, row in rows.items()}
    failures: list[str] = []
    for x, row in rows.items():
        for y, (low, high) in enumerate(bounds[x]):
            if not low <= expected[x][y] <= high:
                failures.append(f"truth {x}, {cell_name(sampler, y, bits)}: observed {row[y] / runs[x]:.5f}, "
                                f"published {expected[x][y]:.5f}")
    return AuditResult(sampler_epsilon(sampler), _epsilon_lower_bound(sampler, bounds, bits), tuple(failures))


def _expected_rows(sampler: dict[str, Any], rows: dict[int, Sequence[int]], bits: bool) -> dict[int, list[float]]:
    if not rows:
        raise ValueError("counts must have at least one row")
    if one_index_of_k(sampler):
        k = sampler["k"]
        if any(not 0 <= x < k or len(row) != k for x, row in rows.items()):
            raise ValueError(f"counts must have rows of {k} counts, one per true answer in [0, {k})")
        table = cell_probabilities(sampler)
        return {x: table[x] for x in rows}
    expected = {x: report_probabilities(sampler, x, bits) for x in rows}
    for x, row in rows.items():
        if len(row) != len(expected[x]):
            raise ValueError(f"counts must have rows of {len(expected[x])} counts (cells), got {len(row)} for {x}")
    return expected


def _epsilon_lower_bound(sampler: dict[str, Any], bounds: dict[int, list[tuple[float, float]]],
                         bits: bool) -> float:
    """The largest log-ratio the confidence bounds prove, over pairs of audited true answers."""
    best = 0.0
    pairs = [(x, x2) for x in bounds for x2 in bounds if x != x2]
    per_bit = bit_cells(sampler, bits)
    for x, x2 in pairs:
        if per_bit and sampler["kind"] == "unary":
            # Bit x is 1 with probability p when x is true and q when x2 is (independent bits assumed).
            low1, high0 = bounds[x][x][0], bounds[x2][x][1]
            if low1 > 0 and high0 < 1:
                best = max(best, math.log(low1 / high0) + math.log((1 - high0) / (1 - low1)))
            continue
        for y, (low, _) in enumerate(bounds[x]):  # one report per run, an event of the report, or "bit y is 1"
            high = bounds[x2][y][1]
            if low > 0:
                best = max(best, math.log(low / high))
            if per_bit and high < 1:  # the event "bit y is 0"
                best = max(best, math.log((1 - high) / (1 - low)))
    return best

"""Every pair's table of codes over the responses, counted in few passes over them.

A pass per pair (bincount of a's code times b's codes plus b's, over the responses answering both) made 435 passes
over 10^6 responses for 30 questions, with a boolean mask and two gathers each. Instead the variables are packed
into groups, each group's codes one mixed-radix number (a missing report, -1, its own extra digit), so that one
bincount over the responses of the group codes of two groups counts their whole joint table, from which each pair
of a variable of one and a variable of the other is a sum over the other digits (and a pair within one group, from
the group's own table). About a third of the passes, and no masks.

With `cells` (each response's weighting cell, -1: none, `ldp.synthetic.weighted`) every table has the cell as its
first axis.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BINS = 1 << 18  # the most numbers a joint table of two groups may hold (2 MiB of counts)


def _groups(sizes: Sequence[int], most: int) -> list[list[int]]:
    """Consecutive variables packed while the product of their digits (codes + 1 for a missing one) stays within
    `most`; a variable alone where it exceeds it."""
    found: list[list[int]] = []
    product = most + 1
    for i, size in enumerate(sizes):
        if product * (size + 1) > most:
            found.append([i])
            product = size + 1
        else:
            found[-1].append(i)
            product *= size + 1
    return found


def _packed(codes: Sequence[IntArray], sizes: Sequence[int], group: list[int]) -> IntArray:
    """The group's codes as one number per response, the first variable's digit the most significant."""
    found = np.zeros(codes[group[0]].size, dtype=np.int64)
    for i in group:
        digit = np.where(codes[i] < 0, sizes[i], codes[i])
        found = found * (sizes[i] + 1) + digit
    return found


def _pairs_of(table: FloatArray, sizes: Sequence[int], variables: list[int], wanted: list[tuple[int, int]],
              lead: int, found: dict[tuple[int, int], FloatArray]) -> None:
    """From a joint table (`lead` leading axes, then one per variable of `variables`, the missing digit last on
    each), the tables of the `wanted` pairs (positions among `variables`) over the responses answering both."""
    for x, y in wanted:
        i, j = variables[x], variables[y]
        keep = (*range(lead), lead + x, lead + y)
        other = tuple(axis for axis in range(table.ndim) if axis not in keep)
        summed = table.sum(axis=other) if other else table
        found[i, j] = summed[..., :sizes[i], :sizes[j]]


def pair_tables(codes: Sequence[IntArray], sizes: Sequence[int], cells: IntArray | None = None,
                cell_count: int = 1) -> dict[tuple[int, int], FloatArray]:
    """Each pair i < j's table of codes (sizes[i] x sizes[j]; with `cells`, cell_count x ... per cell) over the
    responses answering both (code -1: missing; cell -1: left out)."""
    lead = 0 if cells is None else 1
    groups = _groups(list(sizes), max(int(np.sqrt(BINS / cell_count)), 2))
    packed = [_packed(codes, sizes, group) for group in groups]
    radix = [int(np.prod([sizes[i] + 1 for i in group])) for group in groups]
    shapes = [[sizes[i] + 1 for i in group] for group in groups]
    kept = None if cells is None else cells >= 0
    lead_shape = [] if cells is None else [cell_count]
    found: dict[tuple[int, int], FloatArray] = {}
    for g, group in enumerate(groups):
        key = packed[g] if cells is None else cells[kept] * radix[g] + packed[g][kept]
        own = np.bincount(key, minlength=cell_count * radix[g]).astype(float).reshape(*lead_shape, *shapes[g])
        _pairs_of(own, sizes, group, [(x, y) for x in range(len(group)) for y in range(x + 1, len(group))], lead,
                  found)
        for h in range(g + 1, len(groups)):
            joint = packed[g] * radix[h] + packed[h]
            if cells is not None:
                joint = cells[kept] * (radix[g] * radix[h]) + joint[kept]
            table = np.bincount(joint, minlength=cell_count * radix[g] * radix[h]).astype(float)
            _pairs_of(table.reshape(*lead_shape, *shapes[g], *shapes[h]), sizes, group + groups[h],
                      [(x, len(group) + y) for x in range(len(group)) for y in range(len(groups[h]))], lead, found)
    return {(i, j): found[i, j] for i in range(len(sizes)) for j in range(i + 1, len(sizes))}

"""Synthetic rows of a weighted survey: the latent class model fitted to the weighted reports, so that the rows
reproduce the weighted (population) figures, and the weighted estimates the quality report compares them with.

The weights are the raking's (`ldp.weighting.raking`), and a response's weight depends only on its **cell** (its
answers to
the margin questions): `Weighting` is the raking's design over the cells (with each cell's count of responses) and
each response's cell. Every count the fit uses is then counted once per cell, `Tables` (a pair's table of code pairs
per cell: cells x codes x codes numbers, never a number per response), and the weighted count is the cells' weights
times their counts: weighted EM, each report's contribution multiplied by its weight (mean 1 over the weighted
responses, as the raking scales them), so the fitted model is the maximum of the weighted pairwise likelihood, and
its rows have the weighted shares.

The weighted estimate of a counter (an option, a box of a multi-select, a pair of them) is the weighted mean of each
response's unbiased value: (y - q) / (p - q) for one report's counter, the product of two such for a pair (the two
reports are randomized independently given the answers, so the product's expectation is the pair's indicator), its
variance by linearization through the raking (`ldp.weighting.raking.Raked.mean` over the grouped (cell, code) rows):
the
dashboard's weighted fractions (`ldp.weighting.estimates`) for one counter, and their pairwise analogue.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from ..weighting.raking import Raked
from .pairs import pair_tables
from .questions import Variable

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Weighting:
    """The raking's design over the weighting cells (`Raked.counts`: each cell's responses) and each response's
    cell (-1: no weight, a response left out of the weighted figures and of the fit)."""

    design: Raked
    cells: IntArray

    def __post_init__(self) -> None:
        cells = np.asarray(self.cells)
        if cells.size and (cells.max() >= self.design.weights.size or cells.min() < -1):
            raise ValueError("a response's cell must be one of the design's rows, or -1")

    @property
    def size(self) -> int:
        return int(self.design.weights.size)


@dataclass(frozen=True)
class Tables:
    """Counts per cell: each variable's codes (cells x codes) and each pair's code pairs (cells x codes x codes,
    keyed by the two variables' indexes, the first lower)."""

    ones: list[FloatArray]
    pairs: dict[tuple[int, int], FloatArray]


def tables(variables: list[Variable], weighting: Weighting) -> Tables:
    """Every variable's and pair's counts per cell, over the weighted responses answering them (pairs: by
    `ldp.synthetic.pairs`)."""
    cells, size = np.asarray(weighting.cells, dtype=np.int64), weighting.size
    weighted = cells >= 0
    ones = []
    for v in variables:
        codes = v.channel.shape[0]
        at = v.present & weighted
        ones.append(np.bincount(cells[at] * codes + v.codes[at], minlength=size * codes)
                    .reshape(size, codes).astype(float))
    pairs = pair_tables([v.codes for v in variables], [v.channel.shape[0] for v in variables], cells, size)
    return Tables(ones, pairs)


def weighted_ones(found: Tables, weighting: Weighting) -> list[FloatArray]:
    """Each variable's weighted code counts."""
    return [weighting.design.weights @ counts for counts in found.ones]


def weighted_pair(found: Tables, weighting: Weighting, i: int, j: int) -> FloatArray:
    """The weighted table of code pairs of variables i < j."""
    return np.tensordot(weighting.design.weights, found.pairs[i, j], axes=1)


def _unbiased(variable: Variable, slots: FloatArray) -> FloatArray:
    """Each code's unbiased value of each counter: (y - q) / (p - q) (codes x counters)."""
    return (slots - variable.q_other) / (variable.p - variable.q_other)


def _grouped(weighting: Weighting, counts: FloatArray) -> tuple[Raked, IntArray, IntArray]:
    """The design over the rows of `counts` (cells x codes, flattened per cell) that hold responses, each row
    standing for its count, and each row's cell and code."""
    flat = counts.reshape(counts.shape[0], -1)
    cell, code = np.nonzero(flat)
    design = weighting.design
    grouped = replace(design, weights=design.weights[cell], counts=flat[cell, code],
                      margins=tuple(replace(m, codes=m.codes[cell]) for m in design.margins))
    return grouped, cell, code


def estimate_one(variable: Variable, slots: FloatArray, counts: FloatArray,
                 weighting: Weighting) -> tuple[FloatArray, FloatArray, int]:
    """The weighted estimate of each of a variable's counters, its standard error, and the responses behind it.
    `slots`: the counters each code fills (codes x counters); `counts`: its codes' counts per cell."""
    if counts.sum() == 0:
        return np.zeros(slots.shape[1]), np.zeros(slots.shape[1]), 0
    design, _, code = _grouped(weighting, counts)
    mean, variance = design.mean(_unbiased(variable, slots)[code])
    return np.asarray(mean), np.sqrt(np.maximum(variance, 0.0)), design.n


def estimate_pair(a: Variable, b: Variable, slots_a: FloatArray, slots_b: FloatArray, counts: FloatArray,
                  weighting: Weighting) -> tuple[FloatArray, FloatArray, int]:
    """The weighted estimate of a pair's table of counters (counters of a x counters of b), its standard errors and
    the responses behind it; `counts`: the pair's code pairs per cell (cells x codes of a x codes of b)."""
    shape = (slots_a.shape[1], slots_b.shape[1])
    if counts.sum() == 0:
        return np.zeros(shape), np.zeros(shape), 0
    design, _, code = _grouped(weighting, counts)
    codes_b = counts.shape[2]
    left, right = _unbiased(a, slots_a)[code // codes_b], _unbiased(b, slots_b)[code % codes_b]
    values = (left[:, :, None] * right[:, None, :]).reshape(code.size, -1)
    mean, variance = design.mean(values)
    return np.asarray(mean).reshape(shape), np.sqrt(np.maximum(variance, 0.0)).reshape(shape), design.n

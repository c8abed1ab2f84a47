"""A latent class model over the variables, fitted to every pair's table of report codes through the product of the
two variables' exact channels, and rows drawn from it.

The model: a class h with probability w_h, and given it every variable independently, P_a(x | h). Its pair tables
are sum_h w_h P_a(. | h) P_b(. | h)^T, its codes' pair tables M_ab = sum_h w_h (C_a P_a(. | h)) (C_b P_b(. | h))^T.
The fit maximizes the pairwise (composite) likelihood of the stored reports,

    l = sum over ordered pairs a != b of sum_{c, d} R_ab(c, d) log M_ab(c, d) + sum_a sum_c h_a(c) log M_a(c),

R_ab the counts of code pairs over the responses answering both, h_a a's own counts (Lindsay 1988; Varin, Reid &
Firth 2011: the 1-way terms weigh little beside a variable's pairs, and keep a question answered alone, or a
survey of one question, at its own estimate), by EM: with G = (R / M) (C P)^T summed over the partners, plus
h / M_a, the expected counts are E[h, (a, x)] = w_h P_a(x | h) (C_a^T G_a)(x, h); P_a(. | h) is E normalized
within a's values, w is E's share per class. The whole fit works
on the concatenated codes (S = the sum of the variables' codes) and values: an S x S table of pair counts, made
once, and (H x values) parameters; its cost does not grow with the responses.

Every pair table the reports identify enters the fit through its exact channel, the model is one distribution
(non-negative, summing to 1, every marginal agreeing), and a latent class joins the questions as a common cause
does, which a tree of pairs (Chow-Liu) cannot: over a survey whose answers share a common factor a tree leaves
the pairs it has no edge for far less dependent than they are (measured in docs/synthetic.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import fit, pairs, weighted
from .questions import Variable
from .weighted import Tables, Weighting

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
CLASSES = 16
ITERATIONS = 1000
TOLERANCE = 1e-9  # the iterations end when a cycle gains less than this share of the pairwise log-likelihood


@dataclass(frozen=True)
class Model:
    """The classes' probabilities w (H) and P (H x the concatenated values; each variable's block a distribution),
    with each variable's slice of the values."""

    weights: FloatArray
    conditionals: FloatArray
    blocks: tuple[slice, ...]
    iterations: int
    counts: FloatArray  # the code pairs' counts it was fitted to (S x S; weighted ones), and each variable's codes
    codes: tuple[slice, ...]
    by_cell: Tables | None = None  # a weighted fit's counts per weighting cell (`ldp.synthetic.weighted`)

    def marginal(self, variable: int) -> FloatArray:
        return np.asarray(self.weights @ self.conditionals[:, self.blocks[variable]], dtype=float)

    def pair(self, a: int, b: int) -> FloatArray:
        pa, pb = self.conditionals[:, self.blocks[a]], self.conditionals[:, self.blocks[b]]
        return np.asarray((pa.T * self.weights) @ pb, dtype=float)


def _slices(sizes: list[int]) -> tuple[slice, ...]:
    ends = np.cumsum([0, *sizes])
    return tuple(slice(int(ends[i]), int(ends[i + 1])) for i in range(len(sizes)))


def pair_table(variables: list[Variable]) -> tuple[FloatArray, tuple[slice, ...]]:
    """The S x S counts of code pairs (both orders; a variable with itself left out) and each variable's codes."""
    codes = _slices([v.channel.shape[0] for v in variables])
    counts = np.zeros((codes[-1].stop, codes[-1].stop)) if variables else np.zeros((0, 0))
    found = pairs.pair_tables([v.codes for v in variables], [v.channel.shape[0] for v in variables])
    for (i, j), block in found.items():
        counts[codes[i], codes[j]] = block
        counts[codes[j], codes[i]] = block.T
    return counts, codes


def weighted_table(variables: list[Variable], weighting: Weighting) -> tuple[FloatArray, FloatArray, Tables]:
    """`pair_table`'s S x S counts and each code's count, weighted (`ldp.synthetic.weighted`), and the counts per
    cell they come from."""
    by_cell = weighted.tables(variables, weighting)
    codes = _slices([v.channel.shape[0] for v in variables])
    counts = np.zeros((codes[-1].stop, codes[-1].stop)) if variables else np.zeros((0, 0))
    for i, j in by_cell.pairs:
        block = weighted.weighted_pair(by_cell, weighting, i, j)
        counts[codes[i], codes[j]] = block
        counts[codes[j], codes[i]] = block.T
    return counts, np.concatenate(weighted.weighted_ones(by_cell, weighting)), by_cell


def fitted(variables: list[Variable], rng: np.random.Generator, classes: int = CLASSES,
           weighting: Weighting | None = None) -> Model:
    """The model fitted to the reports (module docstring); with `weighting`, to the weighted reports: every count
    the likelihood sums is a sum of the responses' weights (weighted EM), so the model has the weighted shares."""
    by_cell = None
    if weighting is None:
        counts, codes = pair_table(variables)
        ones = np.concatenate([np.bincount(v.codes[v.present], minlength=v.channel.shape[0]) for v in variables]
                              ).astype(float)
    else:
        codes = _slices([v.channel.shape[0] for v in variables])
        counts, ones, by_cell = weighted_table(variables, weighting)
    values = _slices([v.k for v in variables])
    size = values[-1].stop if variables else 0
    channel = np.zeros((counts.shape[0], size))  # block diagonal: P(code | value) of each variable
    for v, c, x in zip(variables, codes, values, strict=True):
        channel[c, x] = v.channel
    conditionals = np.empty((classes, size))
    for i, v in enumerate(variables):  # each class a perturbation of the variable's own estimate
        start = fit.one_way(v, ones[codes[i]]) + 1e-3
        if v.subsets is not None:  # no class may tick more options than allowed
            start = start * (np.bitwise_count(np.arange(v.k)) <= v.subsets)
        conditionals[:, values[i]] = start * rng.dirichlet(np.full(v.k, 2.0), size=classes)
    conditionals = _normalized(conditionals, values)
    cells = np.flatnonzero(counts)  # only the code pairs seen enter the likelihood
    seen = counts.ravel()[cells]
    ratio = np.zeros(counts.size)
    answered = ones > 0

    def step(theta: FloatArray) -> tuple[FloatArray, float]:
        weights, conditionals = theta[:, 0], theta[:, 1:]
        through = conditionals @ channel.T  # (H, S): P(code | h)
        predicted = np.maximum(((through.T * weights) @ through).ravel()[cells], 1e-300)
        ratio[cells] = seen / predicted
        alone = np.maximum(weights @ through, 1e-300)  # each code's probability, for the 1-way terms
        by_code = ratio.reshape(counts.shape) @ through.T + np.where(answered, ones / alone, 0.0)[:, None]
        expected = conditionals * (channel.T @ by_code).T * weights[:, None]
        loglik = float(seen @ np.log(predicted) + ones[answered] @ np.log(alone[answered]))
        return np.column_stack([expected.sum(axis=1) / expected.sum(), _normalized(expected, values)]), loglik

    def normalized(theta: FloatArray) -> FloatArray:
        return np.column_stack([theta[:, 0] / theta[:, 0].sum(), _normalized(theta[:, 1:], values)])

    start = np.column_stack([np.full(classes, 1.0 / classes), conditionals])
    total = float(counts.sum() + ones.sum())
    theta, done = fit.squarem(step, start, normalized, TOLERANCE * total * np.log(max(counts.shape[0], 2)),
                              ITERATIONS)
    return Model(theta[:, 0].copy(), theta[:, 1:].copy(), values, done, counts, codes, by_cell)


def _normalized(table: FloatArray, blocks: tuple[slice, ...]) -> FloatArray:
    """Each block of columns divided by its sum, row by row (each class's distribution of each variable)."""
    found = np.maximum(table, 1e-300)
    starts = np.array([b.start for b in blocks])
    sizes = np.array([b.stop - b.start for b in blocks])
    return np.asarray(found / np.repeat(np.add.reduceat(found, starts, axis=1), sizes, axis=1), dtype=float)


def systematic(shares: FloatArray, count: int, rng: np.random.Generator) -> IntArray:
    """`count` values with these shares by systematic sampling (one uniform start, then steps of 1 / count), so that
    each value is drawn floor or ceil of its expected number of times, in a random order."""
    cdf = np.cumsum(shares)
    points = (np.arange(count) + rng.random()) / count
    drawn = np.minimum(np.searchsorted(cdf / cdf[-1], points, side="right"), shares.size - 1)
    return rng.permutation(drawn).astype(np.int64)


def draw(model: Model, rows: int, rng: np.random.Generator) -> list[IntArray]:
    """`rows` draws: each class as often as its probability says (systematic sampling, whole numbers), then within
    the class each variable's values as often as its distribution there says, in independent random orders. The
    rows then carry the model's shares up to rounding instead of a multinomial draw's noise, which would add to
    the estimates' own error in every figure computed from them."""
    classes = systematic(model.weights, rows, rng)
    order = np.argsort(classes, kind="stable")
    ends = np.cumsum(np.bincount(classes, minlength=model.weights.size))
    values = []
    for block in model.blocks:
        found = np.empty(rows, dtype=np.int64)
        for h, end in enumerate(ends):
            members = order[(ends[h - 1] if h else 0):end]
            found[members] = systematic(model.conditionals[h, block], members.size, rng)
        values.append(found)
    return values

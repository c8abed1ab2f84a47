"""A tree of maximum mutual information over the variables (Chow & Liu 1968), fitted to the estimated 1- and
2-way marginals as Private-PGM fits a graphical model to measured marginals (McKenna et al. 2019), and rows
drawn from it.

Every variable's distribution is its own maximum-likelihood estimate; each pair's table is the maximum-likelihood
table through the product channel (`ldp.synthetic.fit`). The tree is the maximum spanning forest of the pairs'
mutual information (a pair never answered together has no edge); each edge keeps its pair table raked to the
two variables' estimates, so the model is one consistent distribution (non-negative, summing to 1, every
marginal agreeing) whose 1-way marginals are the estimates and whose edges' 2-way marginals are the pair
estimates; other pairs and higher marginals follow the tree (conditional independence given the path).
Its size is the variables' values and the edges' tables: never the joint table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import fit
from .questions import Variable

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Model:
    """Each variable's distribution, its parent (-1: a root) and P(value | parent's value) (rows: the parent's)."""

    marginals: tuple[FloatArray, ...]
    parents: tuple[int, ...]
    conditionals: tuple[FloatArray | None, ...]
    order: tuple[int, ...]  # parents before children
    pairs: dict[tuple[int, int], FloatArray]  # the fitted pair tables (i < j), those answered together
    information: dict[tuple[int, int], float]


def fitted(variables: list[Variable]) -> Model:
    marginals = [fit.one_way(v) for v in variables]
    pairs, information = {}, {}
    for i in range(len(variables)):
        for j in range(i + 1, len(variables)):
            counts = fit.pair_counts(variables[i], variables[j])
            if counts.sum() == 0:
                continue  # never answered together: no edge
            table = fit.table_em(counts, variables[i].channel, variables[j].channel,
                                 start=np.outer(marginals[i], marginals[j]))
            pairs[i, j] = table
            information[i, j] = fit.mutual_information(table)
    return _tree(marginals, pairs, information)


def _tree(marginals: list[FloatArray], pairs: dict[tuple[int, int], FloatArray],
          information: dict[tuple[int, int], float]) -> Model:
    count = len(marginals)
    group = list(range(count))

    def root(x: int) -> int:
        while group[x] != x:
            group[x] = group[group[x]]
            x = group[x]
        return x

    neighbours: dict[int, list[int]] = {v: [] for v in range(count)}
    for (i, j) in sorted(information, key=lambda pair: (-information[pair], pair)):  # Kruskal
        if root(i) != root(j):
            group[root(i)] = root(j)
            neighbours[i].append(j)
            neighbours[j].append(i)
    parents, order = [-1] * count, []
    seen = [False] * count
    for start in range(count):
        if seen[start]:
            continue
        seen[start], queue = True, [start]
        while queue:
            node = queue.pop(0)
            order.append(node)
            for child in sorted(neighbours[node]):
                if not seen[child]:
                    seen[child], parents[child] = True, node
                    queue.append(child)
    conditionals: list[FloatArray | None] = []
    for child, parent in enumerate(parents):
        if parent < 0:
            conditionals.append(None)
            continue
        table = pairs[(parent, child)] if parent < child else pairs[(child, parent)].T
        joint = fit.rake(table, marginals[parent], marginals[child])
        conditionals.append(joint / joint.sum(axis=1, keepdims=True))
    return Model(tuple(marginals), tuple(parents), tuple(conditionals), tuple(order), pairs, information)


def draw(model: Model, rows: int, rng: np.random.Generator) -> list[IntArray]:
    """`rows` draws of every variable's value, parents first (each a categorical draw by inverse CDF)."""
    values: list[IntArray] = [np.zeros(0, dtype=np.int64)] * len(model.parents)
    for node in model.order:
        parent, conditional = model.parents[node], model.conditionals[node]
        u = rng.random(rows)
        if conditional is None:
            cdf = np.cumsum(model.marginals[node])
            values[node] = np.minimum(np.searchsorted(cdf / cdf[-1], u, side="right"), cdf.size - 1)
        else:
            cdf = np.cumsum(conditional, axis=1)
            cdf /= cdf[:, -1:]
            rows_cdf = cdf[values[parent]]
            values[node] = np.minimum((rows_cdf <= u[:, None]).sum(axis=1), cdf.shape[1] - 1)
        values[node] = values[node].astype(np.int64)
    return values

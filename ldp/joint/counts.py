"""The input of the joint estimates (`ldp.joint.tables`): co-occurrence counts of two questions' reports.

Built from counts (what the app's GROUP BY over pairs of stored values returns) or from the
output of `randomize` (simulations). Nothing else about the reports is needed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import IntArray, Mechanism


@dataclass(frozen=True, eq=False)
class JointCounts:
    """Co-occurrence counts of two questions' reports over the n respondents who answered both.

    pairs[a, b]: respondents whose report to A counts for option a (index: is a; unary: has bit
    a set) and whose report to B counts for b; a_counts[a], b_counts[b]: the same per question
    (over these n respondents). For two index questions pairs is the k_A x k_B table of report
    pairs and the rest follows from it.

    >>> from ldp import KaryRR, OptimizedUnary
    >>> a, b = KaryRR(1.0, 3), OptimizedUnary(1.0, 2)
    >>> c = JointCounts.from_reports(a, [0, 2, 2], b, [[1, 0], [1, 1], [0, 0]])
    >>> c.pairs.tolist(), c.a_counts.tolist(), c.b_counts.tolist(), c.n
    ([[1, 0], [0, 0], [1, 1]], [1, 0, 2], [2, 1], 3)
    """

    pairs: IntArray
    a_counts: IntArray
    b_counts: IntArray
    n: int

    @classmethod
    def from_counts(cls, a: Mechanism, b: Mechanism, pairs: npt.ArrayLike, n: int,
                    a_counts: npt.ArrayLike | None = None, b_counts: npt.ArrayLike | None = None) -> JointCounts:
        """From counts (the app's GROUP BY). A's counts follow from pairs when B is index-encoded
        (one report per respondent), B's when A is; otherwise they must be given. Checked."""
        table = _whole(pairs, "pairs")
        if table.shape != (a.k, b.k):
            raise ValueError(f"pairs must be a {a.k} x {b.k} table (options of A x options of B)")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
            raise ValueError("n must be a positive integer")
        rows = _marginal(table.sum(axis=1), a_counts, not b.unary, "a_counts", a.k)
        columns = _marginal(table.sum(axis=0), b_counts, not a.unary, "b_counts", b.k)
        both = rows[:, None] + columns[None, :] - table
        if (table < 0).any() or (table > np.minimum(rows[:, None], columns[None, :])).any() or (both > n).any():
            raise ValueError("the counts are inconsistent: need 0 <= pairs[a, b] <= a_counts[a], b_counts[b] "
                             "and a_counts[a] + b_counts[b] - pairs[a, b] <= n")
        if not (a.unary or b.unary) and int(table.sum()) != n:
            raise ValueError("for two index questions the pairs must add up to n")
        if not a.unary and int(rows.sum()) != n or not b.unary and int(columns.sum()) != n:
            raise ValueError("an index question's counts must add up to n")
        for array in (table, rows, columns):
            array.setflags(write=False)
        return cls(table, rows, columns, int(n))

    @classmethod
    def from_values(cls, a: Mechanism, b: Mechanism, values_a: npt.ArrayLike, values_b: npt.ArrayLike,
                    counts: npt.ArrayLike | None = None) -> JointCounts:
        """From pairs of stored values (`Mechanism.encode`) and how often each pair occurred
        (default once each): what a GROUP BY over (A's value, B's value) returns."""
        slots_a, slots_b = _slots(a, values_a), _slots(b, values_b)
        if len(slots_a) != len(slots_b):
            raise ValueError("values_a and values_b must pair up one to one")
        weight = np.ones(len(slots_a), dtype=np.int64) if counts is None else _whole(counts, "counts").reshape(-1)
        if weight.shape != (len(slots_a),) or (weight < 0).any():
            raise ValueError("counts must be one non-negative count per pair of values")
        n = int(weight.sum())
        return cls.from_counts(a, b, (slots_a * weight[:, None]).T @ slots_b, n,
                               weight @ slots_a, weight @ slots_b)

    @classmethod
    def from_reports(cls, a: Mechanism, reports_a: npt.ArrayLike, b: Mechanism,
                     reports_b: npt.ArrayLike) -> JointCounts:
        """From the output of `randomize` for the same respondents, in the same order."""
        return cls.from_values(a, b, a.encode_many(reports_a), b.encode_many(reports_b))

    def transposed(self) -> JointCounts:
        """The same counts with the roles of A and B exchanged."""
        return JointCounts(self.pairs.T, self.b_counts, self.a_counts, self.n)


def _slots(m: Mechanism, values: npt.ArrayLike) -> IntArray:
    """One row per stored value: 1 in the columns of the options it counts for."""
    array = _whole(values, "values").reshape(-1)
    limit = 1 << m.k if m.unary else m.k
    if array.size and (array.min() < 0 or array.max() >= limit):
        raise ValueError(f"values outside what {m.name} stores")
    if m.unary:
        return np.asarray((array[:, None] >> np.arange(m.k, dtype=np.int64)) & 1, dtype=np.int64)
    return np.asarray(array[:, None] == np.arange(m.k), dtype=np.int64)


def _whole(values: npt.ArrayLike, name: str) -> IntArray:
    array = np.asarray(values)
    if array.dtype.kind not in "iub" and not (array.dtype.kind == "f" and np.all(np.mod(array, 1) == 0)):
        raise ValueError(f"{name} must be whole numbers")
    return array.astype(np.int64)


def _marginal(implied: IntArray, given: npt.ArrayLike | None, derivable: bool, name: str, k: int) -> IntArray:
    if given is None:
        if not derivable:
            raise ValueError(f"{name} is needed: it does not follow from the pairs of a unary question")
        return implied.astype(np.int64)
    counts = _whole(given, name).reshape(-1)
    if counts.shape != (k,):
        raise ValueError(f"{name} must have one count per option ({k})")
    if derivable and not np.array_equal(counts, implied):
        raise ValueError(f"{name} must equal the sums of the pairs")
    return counts

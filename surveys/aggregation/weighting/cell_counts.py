"""The weighted figures' grouped rows from the running (cell x stored value) counts (`surveys.collection.cell_tallies`),
not from the reports: what `weighting.Weights.grouped` gives a question, or a question broken down by a key.

A watch's keys are the margin questions and, for a break-down by a question that is not one of them, that
question last (`extra`): a cell code is then the margins' cell times its radix plus its stored value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from surveys.collection import cell_tallies
from surveys.collection.plan import PlannedQuestion


@dataclass(frozen=True)
class Tallied:
    keys: tuple[PlannedQuestion, ...]  # the watch's keys: the margin questions, then `extra` if any
    extra: bool  # whether the last key is not a margin question (a break-down's)
    cells: npt.NDArray[np.int64]  # the margins' cell codes, sorted: the design's rows
    counted: Mapping[int, cell_tallies.Rows]  # question id -> its (key code, stored value, count) rows

    @property
    def extra_radix(self) -> int:
        return _extra_radix(self.keys, self.extra)

    def answers(self, questions: Sequence[PlannedQuestion]) -> bool:
        """Whether these counts give the grouped rows of `questions`: one question, or one after keys."""
        keys = {q.id for q in self.keys}
        return bool(questions) and questions[-1].id in self.counted and all(q.id in keys for q in questions[:-1])

    def rows(self, questions: Sequence[PlannedQuestion]
             ) -> tuple[npt.NDArray[np.int64], list[npt.NDArray[np.int64]], npt.NDArray[np.int64]]:
        """Each row's design row (its margins' cell), each question's stored value in it, and its count: the
        distinct rows in order, as `report_columns.distinct_rows` gives them from the responses."""
        codes, values, counts = self.counted[questions[-1].id]
        cell = np.searchsorted(self.cells, codes // self.extra_radix)
        weight = dict(zip((q.id for q in self.keys), cell_tallies.multipliers(self.keys), strict=True))
        leading = [codes // weight[q.id] % (cell_tallies.radix(q) or 1) for q in questions[:-1]]
        if self.extra and self.keys[-1].id not in {q.id for q in questions[:-1]}:  # the break-down's key summed out
            rows, inverse = np.unique(np.column_stack([cell, *leading, values]), axis=0, return_inverse=True)
            summed = np.bincount(inverse.ravel(), weights=counts, minlength=len(rows)).astype(np.int64)
            return rows[:, 0], [rows[:, j] for j in range(1, rows.shape[1])], summed
        return cell, [*leading, values], counts


def tallied(keys: tuple[PlannedQuestion, ...], extra: bool, counted: Mapping[int, cell_tallies.Rows]
            ) -> tuple[Tallied, npt.NDArray[np.int64]]:
    """The counts as `Tallied`, and the responses in each of its margins' cells, from the first key's rows (every
    counted response has one)."""
    codes, _values, counts = counted[keys[0].id]
    cells, inverse = np.unique(codes // _extra_radix(keys, extra), return_inverse=True)
    return (Tallied(keys, extra, cells, counted),
            np.bincount(inverse.ravel(), weights=counts, minlength=len(cells)).astype(np.int64))


def _extra_radix(keys: Sequence[PlannedQuestion], extra: bool) -> int:
    """What a cell's code is divided by to give its margins' cell: the break-down's key's radix, if any."""
    return (cell_tallies.radix(keys[-1]) or 1) if extra else 1

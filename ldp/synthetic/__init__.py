"""Synthetic respondents: rows of true-looking answers drawn from one distribution fitted to what the stored
reports say about the population. Built from the reports alone, it is post-processing: it costs no
privacy beyond what respondents were told. No row is a respondent; a figure computed from the rows is an
estimate without its interval.

Method: each question's answer is one or more categorical variables with an exact channel to a code of its
reports (`channels`, `questions`); a latent class model (`latent`) is fitted by EM to every pair's table of codes
through the product of the two channels (the pairwise likelihood), and the rows are drawn from it. `quality`
compares the rows with the debiased estimates. Why this model, and what it achieves: docs/synthetic.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import Mechanism
from ..mechanisms.grid import GridMechanism
from . import latent, questions
from .questions import ReportCellError, Stored, Variable
from .threads import one_blas_thread
from .weighted import Weighting

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Synthetic:
    """The drawn rows as answers per column (`columns` in the questions' order; `cells` as text), the variables read
    from the reports, each question's variables (indexes into `variables`), the fitted model and each variable's
    drawn values."""

    columns: tuple[str, ...]
    answers: dict[str, npt.NDArray[np.int64] | npt.NDArray[np.uint8]]  # `questions.answers`, per column
    variables: list[Variable]
    of_question: dict[str, list[int]]
    model: latent.Model
    values: list[IntArray]
    rows: int
    weighting: Weighting | None = None

    @cached_property
    def cells(self) -> dict[str, list[str]]:
        """The answers as text cells (`questions.answer_cells`), made when asked for: the app writes its own."""
        return {column: questions.answer_cells(found) for column, found in self.answers.items()}


def synthesize(reports: Sequence[tuple[str, Mechanism, npt.ArrayLike | Stored]], rows: int | None = None,
               seed: int | None = None, weighting: Weighting | None = None) -> Synthetic:
    """Rows of true answers for questions given as (column, mechanism, report cells, or the values as the app stores
    them: `Stored`): `rows` of them (default:
    as many as the reports have). With `weighting` (each response's raking cell and the raking over the cells) the
    model is fitted to the weighted reports, and the rows have the weighted shares (`ldp.synthetic.weighted`).
    ReportCellError names a cell that is no report of its question."""
    found: list[Variable] = []
    of_question: dict[str, list[int]] = {}
    for column, mechanism, report_cells in reports:
        made = (questions.stored_variables(column, mechanism, report_cells.values, report_cells.missing)
                if isinstance(report_cells, Stored) else questions.variables(column, mechanism, report_cells))
        of_question[column] = list(range(len(found), len(found) + len(made)))
        found.extend(made)
    lengths = {v.codes.size for v in found}
    if len(lengths) > 1:
        raise ValueError(f"every question needs one report cell per response, got columns of {sorted(lengths)} cells")
    total = found[0].codes.size if found else 0
    if weighting is not None and np.asarray(weighting.cells).size != total:
        raise ValueError(f"the weighting gives {np.asarray(weighting.cells).size} responses' cells for {total} "
                         "responses")
    rows = total if rows is None else rows
    rng = np.random.default_rng(seed)
    with one_blas_thread():
        model = latent.fitted(found, rng, weighting=weighting)
    values = latent.draw(model, rows, rng)
    answered = {}
    for column, mechanism, _ in reports:
        drawn = [values[i] for i in of_question[column]]
        if isinstance(mechanism, GridMechanism) and mechanism.encoding == "integer":
            drawn = [questions.within_bins(found[of_question[column][0]], drawn[0], rng)]
        answered[column] = questions.answers(mechanism, drawn, rng)
    return Synthetic(tuple(column for column, _, _ in reports), answered, found, of_question, model, values, rows,
                     weighting)


__all__ = ["ReportCellError", "Stored", "Synthetic", "Variable", "Weighting", "synthesize"]

"""Synthetic respondents of a survey (issue 43): rows of true-looking answers drawn from `ldp.synthetic`'s model,
fitted to the survey's stored reports, with the quality report that says how far the rows are from the debiased
estimates. Built from the reports alone, it is post-processing: it costs no privacy beyond what respondents were
told. No row is a respondent; a figure computed from the rows is an estimate without its interval.

The reports are read as one column per question (`report_columns.aligned`: one statement, numpy-parsed, no Python
object per report), turned into `ldp.synthetic`'s report cells (`stored_cells`), and the drawn true answers are
written as a respondent would have given them: one column per question named by its key (as reports.csv names
it), holding the option's label, a multi-select's ticked options' labels joined by "; " (empty: none ticked), or a
numeric question's number (lo + step i, the grid's value, not its index).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp import Shape
from ldp.synthetic import synthesize
from ldp.synthetic.quality import Quality, quality
from ldp.synthetic.questions import stored_cells
from surveys.collection import report_columns
from surveys.collection.models import Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

TICKED = "; "  # between a multi-select's ticked options' labels
BLOCK = 10_000  # rows per piece of CSV text


@dataclass(frozen=True)
class SyntheticData:
    """The columns' names (the questions' keys), each column's answers (`rows` of them), their quality, and
    `ldp.synthetic`'s cells behind the answers (an option index, a multi-select's bits, a grid index)."""

    header: list[str]
    columns: list[list[str]]
    rows: int
    quality: Quality
    drawn: list[list[str]]


def seed_of(survey: Survey) -> int:
    """The survey's own seed: the same reports give the same rows, in the file and on the dashboard."""
    return int(survey.pk)


def synthetic_data(survey: Survey, current: SurveyPlan, rows: int | None = None,
                   seed: int | None = None) -> SyntheticData:
    """`rows` synthetic respondents (default: as many as the survey's responses) drawn with `seed` (default
    `seed_of(survey)`) from the survey's stored reports under its plan `current`."""
    questions = list(current)
    stored = report_columns.aligned([q.id for q in questions]) if questions else []
    responses = len(stored[0]) if stored else 0
    rows = responses if rows is None else rows
    header = [q.key for q in questions]
    if responses == 0 or rows == 0:
        return SyntheticData(header, [[] for _ in questions], rows if responses else 0, Quality([]),
                             [[] for _ in questions])
    reports = [(q.key, q.mechanism, stored_cells(q.mechanism, np.where(column == report_columns.MISSING, 0, column),
                                                 column == report_columns.MISSING))
               for q, column in zip(questions, stored, strict=True)]
    made = synthesize(reports, rows=rows, seed=seed_of(survey) if seed is None else seed)
    columns = [_answers(q, made.cells[q.key]) for q in questions]
    return SyntheticData(header, columns, rows, quality(made), [made.cells[q.key] for q in questions])


def _answers(question: PlannedQuestion, cells: list[str]) -> list[str]:
    """A question's true answers (`ldp.synthetic`'s cells: an option index, a multi-select's bits, a grid index) as
    a respondent gives them, through a table of the distinct cells."""
    distinct = {cell: _answer(question, cell) for cell in set(cells)}
    return [distinct[cell] for cell in cells]


def _answer(question: PlannedQuestion, cell: str) -> str:
    if question.mechanism.shape is Shape.TICKS:
        return TICKED.join(label for label, bit in zip(question.options, cell, strict=True) if bit == "1")
    if question.mean:
        assert question.scale is not None
        return str(question.scale.value(int(cell)))
    return question.options[int(cell)]


def csv_text(data: SyntheticData, block: int = BLOCK) -> Iterator[str]:
    """The rows as CSV text: the header, then `block` rows per piece (each piece's lines end in "\\n")."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(data.header)
    yield out.getvalue()
    for start in range(0, data.rows, block):
        out.seek(0)
        out.truncate()
        end = min(start + block, data.rows)
        writer.writerows(zip(*(column[start:end] for column in data.columns), strict=True) if data.columns
                         else [[]] * (end - start))
        yield out.getvalue()


def summary(stated: Quality) -> dict[str, Any]:
    """What the export's codebook and the dashboard say of the quality: the whole report, the largest difference
    and the marginal where it is."""
    report = stated.to_dict()
    worst = max(stated.marginals, key=lambda m: m.ratio, default=None)
    report["worst"] = None if worst is None else list(worst.variables)
    return report


def write_csv(survey: Survey, current: SurveyPlan, out: Any, tick: Callable[[int], None],
              variant: str = "") -> tuple[int, dict[str, Any]]:
    """synthetic.csv into `out` (bytes), counting its rows; with the quality report for the export's codebook."""
    data = synthetic_data(survey, current)
    written = 0
    for piece in csv_text(data):
        out.write(piece.encode())
        written += piece.count("\n")
        tick(max(written - 1, 0))
    return written - 1, {"synthetic": {"seed": seed_of(survey), "quality": summary(data.quality)}}


def stated(export: Any) -> dict[str, Any] | None:
    """The quality report a ready synthetic.csv's codebook states (None without a ready file)."""
    if export is None or not export.codebook:
        return None
    found: dict[str, Any] | None = json.loads(export.codebook).get("export", {}).get("synthetic", {}).get("quality")
    return found

"""Synthetic respondents of a survey, microdata any tool can analyse: rows of true-looking answers drawn from
`ldp.synthetic`'s model,
fitted to the survey's stored reports, with the quality report that says how far the rows are from the debiased
estimates. Built from the reports alone, it is post-processing: it costs no privacy beyond what respondents were
told. No row is a respondent; a figure computed from the rows is an estimate without its interval.

The reports are read as one column per question (`report_columns.aligned`: one statement, numpy-parsed, no Python
object per report), handed to `ldp.synthetic` as stored (`Stored`: no text per report), and the drawn true answers are
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
import numpy.typing as npt

from ldp import Shape
from ldp.synthetic import Stored, synthesize
from ldp.synthetic.quality import Quality, quality
from surveys.collection import report_columns
from surveys.collection.models import Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from . import weights as synthetic_weights
from . import words as synthetic_words

TICKED = "; "  # between a multi-select's ticked options' labels
BLOCK = 10_000  # rows per piece of CSV text


@dataclass(frozen=True)
class SyntheticData:
    """The columns' names (the questions' keys), each column's answers (`rows` of them, as text), their quality, and
    `ldp.synthetic`'s answers behind them (an option index, a multi-select's (rows, k) bits, a grid index)."""

    header: list[str]
    columns: list[list[str]]
    rows: int
    quality: Quality
    drawn: list[Any]  # each an array: `ldp.synthetic.questions.answers`
    weights: dict[str, Any] | None = None  # what the codebook says of the weights (`synthetic_weights.Weights`)


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
    weights = synthetic_weights.for_rows(survey, current, stored)
    if responses == 0 or rows == 0:
        return SyntheticData(header, [[] for _ in questions], rows if responses else 0, Quality([]),
                             [[] for _ in questions], weights.statement)
    reports = [(q.key, q.mechanism, Stored(column, column == report_columns.MISSING))
               for q, column in zip(questions, stored, strict=True)]
    made = synthesize(reports, rows=rows, seed=seed_of(survey) if seed is None else seed, weighting=weights.weighting)
    columns = [_answers(q, made.answers[q.key]).tolist() for q in questions]
    return SyntheticData(header, columns, rows, quality(made), [made.answers[q.key] for q in questions],
                         weights.statement)


def _answers(question: PlannedQuestion, answered: npt.NDArray[Any]) -> npt.NDArray[np.object_]:
    """A question's true answers (`ldp.synthetic`'s: an option index, a multi-select's bits, a grid index) as a
    respondent gives them, through a table of the distinct answers (no Python per row: 10^6 rows of 30 questions)."""
    key = answered.astype(np.int64) @ (np.int64(1) << np.arange(answered.shape[1])) if answered.ndim == 2 else answered
    if not key.size:
        return np.empty(0, dtype=object)
    low = int(key.min())
    table = np.empty(int(key.max()) - low + 1, dtype=object)
    for value in np.flatnonzero(np.bincount(key - low)):
        table[value] = _answer(question, int(value) + low)
    return np.asarray(table[key - low], dtype=object)


def _answer(question: PlannedQuestion, value: int) -> str:
    if question.mechanism.shape is Shape.TICKS:  # a bitmask: bit j, option j ticked
        return TICKED.join(label for j, label in enumerate(question.options) if value >> j & 1)
    if question.mean:
        assert question.scale is not None
        return str(question.scale.value(value))
    return question.options[value]


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
    return written - 1, described(survey, data)


def described(survey: Survey, data: SyntheticData) -> dict[str, Any]:
    """What a synthetic file's codebook adds under "export": the seed, the weights (None: the survey has no
    margins) and the quality report."""
    return {"synthetic": {"seed": seed_of(survey), "weights": data.weights, "quality": summary(data.quality)}}


def stated(export: Any) -> dict[str, Any] | None:
    """The quality report a ready synthetic.csv's codebook states, its warnings in the reader's language, with
    whether the rows are weighted (`weighted`: True, False, or None without margins) and, if the weighting was
    refused, why (`not_weighted`) (None without a ready file)."""
    if export is None or not export.codebook:
        return None
    made = json.loads(export.codebook).get("export", {}).get("synthetic", {})
    found: dict[str, Any] | None = made.get("quality")
    if found is None:
        return None
    weights = made.get("weights") or {}
    refused = weights.get("refused")
    return {**found, "warnings": [synthetic_words.sentence(w) for w in found.get("warnings", [])],
            "weighted": weights.get("weighted"),
            "not_weighted": None if refused is None else synthetic_words.refusal(refused)}

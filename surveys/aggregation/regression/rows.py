"""The responses a model uses, read grouped: those with a report for every question asked for, counted by their
stored values. No Python object is made per response, and a survey of 10^6 responses comes back as one row per
distinct combination of stored values (a few thousand with single-choice covariates; about one per response
only with numbers of many values).

Two ways, the same Rows (values, counts and order):
- When every response of the survey has a report of each question (`report_columns.complete`: no optional or
  conditional question among them), each question's values are read as a column in response order, without
  the responses' keys, and grouped in numpy (`report_columns.grouped`).
- Otherwise one query pivots the reports per response (GROUP BY response) and groups by the values: exact
  too, but the grouping of 10^7 reports by a 32-character key takes 10 to 20 s at 10^6 responses.

Grouping is exact, not an approximation: every sum a fit or the raking takes is over responses, and responses
with the same stored values add the same terms (`ldp.regression.logistic`, `ldp.weighting.raking`: `counts`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from django.db import connection

from surveys.collection import report_columns
from surveys.collection.models import Report

from ..results.snapshot import snapshot


@dataclass(frozen=True)
class Rows:
    questions: tuple[int, ...]
    values: npt.NDArray[np.int64]  # one row per distinct combination, one column per question: stored values
    counts: npt.NDArray[np.int64]  # the responses of each row

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def column(self, question: int) -> npt.NDArray[np.int64]:
        return self.values[:, self.questions.index(question)]


def grouped(questions: list[int]) -> Rows:
    """The responses with a report for each of `questions`, grouped by their stored values (in the values'
    order, so that sums are added in the same order every time)."""
    with snapshot():
        if connection.vendor == "postgresql":  # its JIT compiles for seconds (measured 3.9 s at 10^6), saving none
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL jit = off")
        columns = report_columns.complete(questions)
        if columns is None:
            return _pivoted(questions)
    values, counts = report_columns.grouped(columns)  # out of the transaction: the database is done
    return Rows(tuple(questions), values, counts)


def answering_any(questions: list[int]) -> int:
    """The responses with a report for at least one of `questions`."""
    with snapshot():
        responses = report_columns.responses_if_any_complete(questions)
        if responses is not None:
            return responses
        table, response, question, _ = report_columns.quoted(Report, "response", "question", "value")
        marks = ", ".join("%s" for _ in questions)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT COUNT(DISTINCT {response}) FROM {table} WHERE {question} IN ({marks})", questions)
            return int(cursor.fetchone()[0])


def _pivoted(questions: list[int]) -> Rows:
    """The rows grouped by the database: the reports pivoted per response, the complete ones grouped."""
    table, response, question, value = report_columns.quoted(Report, "response", "question", "value")
    picks = ", ".join(f"MAX(CASE WHEN {question} = %s THEN {value} END) AS c{j}" for j in range(len(questions)))
    marks = ", ".join("%s" for _ in questions)
    keys = ", ".join(f"c{j}" for j in range(len(questions)))
    # A response has at most one report per question (a unique constraint): COUNT(*) = k means all k.
    with connection.cursor() as cursor:  # only quoted names are interpolated
        cursor.execute(f"SELECT {keys}, COUNT(*) FROM (SELECT {picks} FROM {table} WHERE {question} IN ({marks}) "
                       f"GROUP BY {response} HAVING COUNT(*) = %s) AS used GROUP BY {keys} ORDER BY {keys}",
                       [*questions, *questions, len(questions)])
        found = np.array(cursor.fetchall(), dtype=np.int64).reshape(-1, len(questions) + 1)
    return Rows(tuple(questions), found[:, :-1], found[:, -1])

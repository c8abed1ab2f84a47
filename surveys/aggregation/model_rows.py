"""The responses a model uses, read grouped: those with a report for every question asked for, counted by their
stored values, in one query. The database does the grouping, so a survey of 10^6 responses sends back one row
per distinct combination of stored values (a few thousand with single-choice covariates; about one per
response only with numbers of many values), and no Python object is made per response.

Grouping is exact, not an approximation: every sum a fit or the raking takes is over responses, and responses
with the same stored values add the same terms (`ldp.logistic`, `ldp.raking`: `counts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt
from django.db import connection, transaction
from django.db.models import Field

from surveys.collection.models import Report


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
    table, response, question, value = _names()
    picks = ", ".join(f"MAX(CASE WHEN {question} = %s THEN {value} END) AS c{j}" for j in range(len(questions)))
    marks = ", ".join("%s" for _ in questions)
    keys = ", ".join(f"c{j}" for j in range(len(questions)))
    # A response has at most one report per question (a unique constraint): COUNT(*) = k means all k.
    with transaction.atomic(), connection.cursor() as cursor:  # only quoted names are interpolated
        if connection.vendor == "postgresql":  # its JIT compiles for seconds (measured 3.9 s at 10^6), saving none
            cursor.execute("SET LOCAL jit = off")
        cursor.execute(f"SELECT {keys}, COUNT(*) FROM (SELECT {picks} FROM {table} WHERE {question} IN ({marks}) "
                       f"GROUP BY {response} HAVING COUNT(*) = %s) AS used GROUP BY {keys} ORDER BY {keys}",
                       [*questions, *questions, len(questions)])
        found = np.array(cursor.fetchall(), dtype=np.int64).reshape(-1, len(questions) + 1)
    return Rows(tuple(questions), found[:, :-1], found[:, -1])


def answering_any(questions: list[int]) -> int:
    """The responses with a report for at least one of `questions`."""
    table, response, question, _ = _names()
    marks = ", ".join("%s" for _ in questions)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(DISTINCT {response}) FROM {table} WHERE {question} IN ({marks})", questions)
        return int(cursor.fetchone()[0])


def _names() -> tuple[str, str, str, str]:
    quote = connection.ops.quote_name

    def column(name: str) -> str:
        return quote(str(cast(Field, Report._meta.get_field(name)).column))

    return quote(Report._meta.db_table), column("response"), column("question"), column("value")

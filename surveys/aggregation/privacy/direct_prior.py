"""The statement's breach with the direct answers as prior: a thief reads each respondent's answers sent as given
beside their randomized reports, and guesses each randomized answer with the shares of their combination of direct
answers (`ldp.disclosure.fitted` through `disclosure`: each combination's debiased shares shrunk toward the
population's, on the simplex), averaged over respondents; per randomized question whose shares are estimated (one
of k options, a multi-select; a number's mean estimates no shares) and for the whole record.

One grouped read: the reports of the randomized questions, each joined to the response's direct answers (one LEFT
JOIN per direct question, a seek each in REPORTS_BY_QUESTION, as `uniqueness`), counted by combination, question
and stored value. Python sees one row per distinct (combination, question, value), at most MOST_ROWS; past that
(a fine direct number across many questions) the figure is not stated. docs/privacy.md gives its time at 10^5 and
10^6 responses (bench/direct_prior_bench.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from django.db import connection

from surveys.collection import plan
from surveys.collection.models import Report, Response, Survey
from surveys.collection.plan import PlannedQuestion

from . import disclosure, uniqueness
from .disclosure import Breach

MOST_ROWS = 500_000  # distinct (combination, question, value) rows read at most (a few tens of MB)
Combination = tuple[int | None, ...]


@dataclass(frozen=True)
class Given:
    breaches: dict[int, Breach]  # per randomized question id
    record: Breach | None  # every covered question at once; None: not every randomized one covered, or too many
    combinations: int  # the distinct combinations of direct answers among the responses read


def covered(question: PlannedQuestion) -> bool:
    """A randomized question whose shares are estimated (one of k options, a multi-select): not a number's mean."""
    return question.randomized and not question.mean


def computed(survey: Survey, current: plan.SurveyPlan | None = None) -> Given | None:
    """None without direct questions or covered questions, or past MOST_ROWS."""
    current = current or plan.of(survey)
    direct = tuple(current.direct)
    questions = [q for q in current if covered(q)]
    if not direct or not questions:
        return None
    read = counted(survey, direct, questions)
    if read is None:
        return None
    breaches, priors = {}, {}
    for question in questions:
        cells = read.get(question.id, {})
        if not cells:
            continue
        combos = sorted(cells, key=_order)
        tallied = [_tally(question, cells[combo]) for combo in combos]
        breaches[question.id], fitted = disclosure.given(question.mechanism, tallied)
        priors[question.id] = dict(zip(combos, fitted, strict=True))
    everything = [q for q in current if q.randomized]
    return Given(breaches, _record(everything, questions, priors), len({c for cells in read.values() for c in cells}))


def counted(survey: Survey, direct: Sequence[PlannedQuestion],
            questions: Sequence[PlannedQuestion]) -> dict[int, dict[Combination, dict[int, int]]] | None:
    """{question id: {combination of direct values: {stored value: reports}}}, one grouped query; None past
    MOST_ROWS."""
    joins, values, params = uniqueness.direct_joins(direct, {})
    response = connection.ops.quote_name(Response._meta.db_table)
    report = connection.ops.quote_name(Report._meta.db_table)
    marks = ", ".join(["%s"] * len(questions))
    grouped = ", ".join([*values, "x.question_id", "x.value"])
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {grouped}, COUNT(*) FROM {response} r {' '.join(joins)} "
                       f"JOIN {report} x ON x.response_id = r.id AND x.question_id IN ({marks}) "
                       f"WHERE r.survey_id = %s GROUP BY {grouped}", [*params, *(q.id for q in questions), survey.pk])
        rows = cursor.fetchmany(MOST_ROWS + 1)
    if len(rows) > MOST_ROWS:
        return None
    found: dict[int, dict[Combination, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    width = len(direct)
    for row in rows:
        found[row[width]][tuple(row[:width])][int(row[width + 1])] = int(row[-1])
    return found


def _tally(question: PlannedQuestion, seen: dict[int, int]) -> tuple[list[int], int]:
    values = np.fromiter(seen, dtype=np.int64, count=len(seen))
    counts = np.fromiter(seen.values(), dtype=np.int64, count=len(seen))
    return [int(c) for c in question.mechanism.tally(values, counts)], int(counts.sum())


def _record(everything: Sequence[PlannedQuestion], questions: Sequence[PlannedQuestion],
            priors: dict[int, dict[Combination, tuple[int, list[Fraction]]]]) -> Breach | None:
    """The combinations every question has reports in, each weighed by its respondents (the first question's)."""
    if [q.id for q in everything] != [q.id for q in questions] or set(priors) != {q.id for q in questions}:
        return None
    first, *rest = (priors[q.id] for q in questions)
    groups = [(size, [pi, *(other[combo][1] for other in rest)]) for combo, (size, pi) in first.items()
              if all(combo in other for other in rest)]
    if not groups:
        return None
    return disclosure.given_record([q.mechanism for q in questions], groups)


def _order(combo: Combination) -> tuple[int, ...]:
    return tuple(-1 if value is None else value for value in combo)


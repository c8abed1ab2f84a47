"""A weighted survey's synthetic rows: each response's raking weight to the survey's population margins, the very
weights of the dashboard's weighted figures and of the exports' weight column (`weighting.by_cells`, raked over the
cells of the margin questions' answers), handed to `ldp.synthetic` so that the rows reproduce the weighted figures.

When the survey has margins but its responses cannot be weighted (stale margins, a margin category nobody chose, a
question some weighted response has no report of, as skip logic leaves it: the weighted figures' refusal), the
rows are not weighted and the statement says why, never silently. The reason is kept in English in the file's
codebook (with a code where the app can say it again in the reader's language, `synthetic_words`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.utils import translation

from ldp.synthetic import Weighting
from surveys.collection import report_columns
from surveys.collection.models import Survey
from surveys.collection.plan import SurveyPlan

from ..weighting import weights as weighting


@dataclass(frozen=True)
class Weights:
    """The weighting handed to the fit (None: unweighted) and what the codebook says of it: None without margins,
    else {"weighted": true, "margins": [keys]} or {"weighted": false, "refused": {"code", "values", "text"}}."""

    weighting: Weighting | None
    statement: dict[str, Any] | None


def for_rows(survey: Survey, current: SurveyPlan, columns: list[report_columns.Column]) -> Weights:
    """The weights of the responses whose stored reports are `columns` (one per question of `current`, aligned)."""
    with translation.override("en"):  # the codebook's words; the page says them again in its own language
        try:
            return _weights(survey, current, columns)
        except weighting.Unweightable as refusal:
            return _refused("refused", {}, refusal.reason)


def _weights(survey: Survey, current: SurveyPlan, columns: list[report_columns.Column]) -> Weights:
    found = weighting.margins_of(survey)
    if not found:
        return Weights(None, None)
    questions = list(current)
    at = {q.id: j for j, q in enumerate(questions)}
    if any(m.question_id not in at for m in found):
        return _refused("refused", {}, "A margin question is not among the questions of these rows.")
    margins = [columns[at[m.question_id]] for m in found]
    answered = np.logical_and.reduce([column != report_columns.MISSING for column in margins])
    for question, column in zip(questions, columns, strict=True):
        if (column[answered] == report_columns.MISSING).any():
            return _refused("unanswered", {"question": question.order},
                            f"Question {question.order} was not answered by every weighted response.")
    design, _, cells = weighting.by_cells(found, {q.id: q for q in questions}, [m[answered] for m in margins])
    per_response = np.full(answered.size, -1, dtype=np.int64)
    per_response[answered] = cells
    return Weights(Weighting(design, per_response),
                   {"weighted": True, "margins": [questions[at[m.question_id]].key for m in found],
                    "rule": "the model is fitted to the reports with each response's raking weight to the population "
                            "margins (the weight column of reports.csv; responses without one left out), so the "
                            "rows' shares are the weighted figures'; the quality report compares them with the "
                            "weighted estimates and their standard errors"})


def _refused(code: str, values: dict[str, Any], text: str) -> Weights:
    return Weights(None, {"weighted": False, "refused": {"code": code, "values": values, "text": text}})

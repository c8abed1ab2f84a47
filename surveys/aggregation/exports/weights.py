"""The weight column of the report exports: each response's raking weight to the survey's population margins,
the very weights the dashboard's weighted figures use (surveys.aggregation.weighting.weights), for a survey that has
margins; and what the codebook says of them.

A response that does not answer every margin question has no weight (an empty cell, a missing value): the
weighted figures leave it out. When the responses cannot be raked at all (a margin category nobody chose, no
response answering every margin question yet) every weight is empty and the dashboard's weighted figures say
why.

Memory. The weights are raked before the first row is written, from each margin question's stored answers read
in blocks in response-id order (`report_blocks`, the order every export is written in and the order the
dashboard's weights come out in): per response one 8-byte code per margin question and one 8-byte weight, plus
the raking's own arrays of n numbers (the margins are built from the codes, `ldp.weighting.raking.coded_margin`, no text
per response). bench/export_weights_bench.py measured 41 bytes per response at 10^5 responses with two margins
(the dashboard's `weighting.weights`, with its dictionaries of response ids, 558), so about 40 MB at 10^6;
reports.csv's traced peak went from 1.7 to 3.9 MiB and its CPU time from 1.9 to 2.8 s (SQLite). The rows are then
written block by block as before, each block taking the next weights in order.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ldp.weighting.raking import MAX_ITERATIONS, TOLERANCE
from surveys.collection.models import Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from ..models import PopulationMargin
from ..weighting import weights as weighting
from . import blocks as report_blocks
from .blocks import Block

NAME = "weight"


def present(survey: Survey) -> bool:
    """Whether the survey's exports carry a weight column: it has population margins."""
    return PopulationMargin.objects.filter(question__survey=survey).exists()


def described(survey: Survey, current: SurveyPlan) -> dict[str, Any] | None:
    """The codebook's "weights": the margins (question, option, share, source) and the weighting rule; None
    without margins."""
    found = weighting.margins_of(survey)
    if not found or not _carried(found, current):
        return None
    questions = {q.id: q for q in current}
    margins = []
    for m in found:
        question = questions[m.question_id]
        shares = weighting.shares_of(m, np.asarray(question.options))
        margins.append({"question": question.key, "question_id": question.id, "text": question.text,
                        "source": m.source,
                        "shares": [{"option_index": question.options.index(label), "option": label, "share": share}
                                   for label, share in shares.items()]})
    return {
        "column": NAME,
        "margins": margins,
        "rule": (
            "raking (iterative proportional fitting) of the responses that answer every margin question, from "
            "weights 1, to the margins' shares, until every weighted sample share is within "
            f"{TOLERANCE:g} of its share (at most {MAX_ITERATIONS} rounds); the weights scaled to sum to the "
            f"number of weighted responses (mean 1); a weight above {weighting.CAP:g} times the median weight is "
            "set to that bound and the weights raked again, until the cap holds (or no longer helps: the margins "
            "always hold)"),
        "cap": weighting.CAP,
        "tolerance": TOLERANCE,
        "empty": "a response without an answer to every margin question has no weight (empty, missing) and is "
                 "left out of the weighted figures; every weight is empty when the responses cannot be raked (a "
                 "margin category nobody chose): the dashboard's weighted figures say why",
        "variance": "by linearization through the raking: Var(lambda_w) = n / (n - 1) sum_i w_i^2 e_i^2 / "
                    "(sum_i w_i)^2, e_i the residuals of the w-weighted least-squares regression of the report "
                    "indicator y_i on the margins' indicator columns; pi_w = (lambda_w - q_other) / (p - q_other), "
                    "SE(pi_w) = sqrt(Var(lambda_w)) / (p - q_other); the interval Wilson's (with continuity "
                    "correction) for lambda_w at the effective n lambda_w (1 - lambda_w) / Var(lambda_w), mapped "
                    "and clipped as the unweighted one. R's survey package gives the same variance from "
                    "calibrate(design, ~margins, population, calfun = \"raking\") on these weights",
    }


@dataclass
class Column:
    """The weights of one export, handed out block by block in the export's order."""

    # Of the responses that answer every margin question, in id order; None when they cannot be raked.
    weights: npt.NDArray[np.float64] | None
    positions: list[int]  # where the margin questions are among the questions the export's blocks read
    taken: int = 0

    def of(self, block: Block) -> list[float | None]:
        """The weight of each response of `block` (None: not weighted). Blocks must come in id order."""
        if self.weights is None:
            return [None] * len(block)
        if block.complete:
            found: list[float | None] = self.weights[self.taken:self.taken + len(block)].tolist()
        else:
            margins = [block.values[i] for i in self.positions]
            weighted = [all(column[row] is not None for column in margins) for row in range(len(block))]
            values = iter(self.weights[self.taken:self.taken + sum(weighted)].tolist())
            found = [next(values) if on else None for on in weighted]
        self.taken += sum(value is not None for value in found)
        return found

    def check_used(self) -> None:
        """Every weight went to its response: the rows read and the weights raked describe the same responses."""
        if self.weights is not None and self.taken != self.weights.size:
            raise RuntimeError(f"{self.taken} weights written of {self.weights.size} raked")


def column(survey: Survey, current: SurveyPlan, questions: Sequence[PlannedQuestion]) -> Column | None:
    """The weight column of an export whose blocks read `questions` (None: the survey has no margins). Inside
    the export's snapshot, so the weights are raked from the responses the rows are written from."""
    found = weighting.margins_of(survey)
    if not found or not _carried(found, current):
        return None
    planned = {q.id: q for q in current}
    asked = [q.id for q in questions]
    positions = [asked.index(m.question_id) for m in found]
    codes = _codes(survey, [planned[m.question_id] for m in found])
    try:
        design, _, cells = weighting.by_cells(found, planned, [codes[m.question_id] for m in found])
    except weighting.Unweightable:  # every weight empty; the dashboard's weighted figures say why
        return Column(None, positions)
    return Column(design.weights[cells], positions)


def _codes(survey: Survey, margins: list[PlannedQuestion]) -> dict[int, npt.NDArray[np.int64]]:
    """Each margin question's stored answer, per response that answers all of them, in response-id order."""
    found = [array("q") for _ in margins]
    for block in report_blocks.blocks(survey, margins):
        if block.complete:
            for codes, values in zip(found, block.values, strict=True):
                codes.extend(map(int, values))  # type: ignore[arg-type]  # complete: no None
            continue
        for row in zip(*block.values, strict=True):
            if all(value is not None for value in row):
                for codes, value in zip(found, row, strict=True):
                    codes.append(int(value))  # not None (checked above)
    return {q.id: np.frombuffer(codes, dtype=np.int64).copy() if len(codes) else np.empty(0, dtype=np.int64)
            for q, codes in zip(margins, found, strict=True)}


def _carried(margins: Sequence[Any], current: SurveyPlan) -> bool:
    """Whether the export's plan has the questions the weights are raked on: an export without the direct columns
    (surveys.aggregation.exports.direct_columns) has no weight either, which would carry their combination."""
    return all(any(q.id == m.question_id for q in current) for m in margins)

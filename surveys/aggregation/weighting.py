"""Weights to population margins: every response raked (`ldp.raking`) to the population shares an admin
entered for the survey's direct questions (PopulationMargin), and the survey's estimates under them
(`ldp.weighted`), from the reports already stored.

Only direct questions (sent as given) can carry a margin: a respondent's category must be known to weight
them. A response without an answer to every margin question cannot be weighted and is left out of the
weighted figures (counted in `left_out`). Weights are capped at CAP times their median and raked again
(`ldp.raking.rake`); their range, Kish's design effect and the effective sample size go with the figures.
Variances are by linearization through the raking (`ldp.raking.Design.mean`), so they account for the
weights and for the margins they were raked to.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
from django.utils.translation import gettext as _

from ldp.estimates import Estimate, MeanEstimate, project_to_simplex
from ldp.linear_model import per_report_values
from ldp.raking import Design, RakingError, coded_margin, margin, rake
from ldp.weighted import indicators, weighted_fractions, weighted_mean
from surveys import refusals
from surveys.collection.models import Report, Survey
from surveys.collection.plan import PlannedQuestion, Unavailable

from .models import PopulationMargin
from .params import BadParameter, ResultOptions

CAP = 5.0  # a weight above 5 times the median weight is capped (and the weights raked again)
FIELD = "weighted"
WEIGHTED = "weighted"  # the intervals' name: Wilson at each option's effective sample size, under the weights


class Unweightable(Unavailable):
    """The responses cannot be raked to the margins (a category nobody chose, say): a 409 naming `weighted`."""

    def __init__(self, reason: str):
        refusals.Refusal.__init__(self, FIELD, reason)


@dataclass(frozen=True)
class MarginUsed:
    question: str
    source: str
    shares: dict[str, float]  # option label -> population share


@dataclass(frozen=True)
class Weights:
    design: Design
    responses: dict[Any, int]  # response id -> its row in the design's weights (empty for a model's grouped rows)
    margins: tuple[MarginUsed, ...]
    left_out: int  # responses without an answer to every margin question

    def summary(self) -> dict[str, Any]:
        return {**self.design.summary(), "left_out": self.left_out}


def offer(survey: Survey, options: ResultOptions) -> dict[str, Any]:
    """The dashboard's links to weighted and unweighted figures (weighted ones only with margins)."""
    return {"can_weight": PopulationMargin.objects.filter(question__survey=survey).exists(),
            "weighted_query": replace(options, weighted=True, interval=None).query(),
            "unweighted_query": replace(options, weighted=False).query()}


def margins_of(survey: Survey) -> list[PopulationMargin]:
    """The survey's margins; Unweightable (409) naming each question whose margin went stale since it was entered
    (surveys.aggregation.margins.check): never a figure raked to impossible shares."""
    from . import margins  # imported here: the rest of this module is not this change's

    found = margins.stored(survey)
    stale = margins.check(found)
    if stale:
        raise Unweightable(stale)
    return found


def weights(survey: Survey, questions: dict[int, PlannedQuestion], among: set[Any] | None = None) -> Weights:
    """The survey's raked weights; a refusal when it has no margins or its responses cannot meet them.
    `among`: only these responses are raked."""
    found = required_margins(survey)
    columns = {m.question_id: _answers(m.question_id) for m in found}
    complete = set.intersection(*(set(answers) for answers in columns.values()))
    if among is not None:
        complete &= among
    everyone = set().union(*(set(answers) for answers in columns.values()))
    order = {response: row for row, response in enumerate(sorted(complete, key=str))}
    codes = {m.question_id: np.fromiter((columns[m.question_id][response] for response in order), dtype=np.int64,
                                        count=len(order)) for m in found}
    design, used = raked(found, questions, codes)
    return Weights(design, order, used, len(everyone - complete))


def required_margins(survey: Survey) -> list[PopulationMargin]:
    """The survey's margins; a refusal when it has none."""
    found = margins_of(survey)
    if not found:
        raise BadParameter(FIELD, _("This survey has no population margins to weight to: a researcher of the survey "
                                    "sets them for its direct questions first (Population margins, on its results "
                                    "page)."))
    return found


def raked(found: list[PopulationMargin], questions: dict[int, PlannedQuestion],
          codes: dict[int, npt.NDArray[np.int64]], counts: npt.NDArray[np.int64] | None = None
          ) -> tuple[Design, tuple[MarginUsed, ...]]:
    """The weights of the responses that answer every margin question, from each one's stored answer (`codes`,
    per margin question, one entry per such response, in the order the weights come out): what the dashboard's
    figures (`weights`), the report exports' weight column (surveys.aggregation.export_weights) and a model
    share. `counts`: each entry stands for that many responses (a model's grouped rows)."""
    if not found or not len(codes[found[0].question_id]):
        raise Unweightable(_("No response answers every margin question yet."))
    used, margins = [], []
    for m in found:
        labels = np.asarray(questions[m.question_id].options)
        shares = shares_of(m, labels)
        try:  # by label, so that a refusal names the options; straight from the codes when every option has a share
            margins.append(coded_margin(m.question.text, codes[m.question_id], shares)
                           if list(shares) == [str(label) for label in labels] else
                           margin(m.question.text, labels[codes[m.question_id]], shares))
        except RakingError as error:
            raise Unweightable(str(error)) from None
        used.append(MarginUsed(m.question.text, m.source, shares))
    return rake(margins, cap=CAP, counts=counts), tuple(used)


def shares_of(found: PopulationMargin, labels: npt.NDArray[Any]) -> dict[str, float]:
    """A margin's shares by option label, in the options' order."""
    index = {option.pk: j for j, option in enumerate(found.question.ordered_options())}
    return {str(labels[index[s.option_id]]): float(s.share)
            for s in sorted(found.shares.all(), key=lambda s: index[s.option_id])}


def _answers(question_id: int) -> dict[Any, int]:
    return dict(Report.objects.filter(question_id=question_id).order_by().values_list("response_id", "value"))


def _reports(question: PlannedQuestion, found: Weights) -> npt.NDArray[Any]:
    """The question's reports as sent, in the weights' order."""
    stored = _stored(question, found)
    mechanism = question.mechanism
    if mechanism.unary:
        return (stored[:, None] >> np.arange(mechanism.k)) & 1
    return np.fromiter((mechanism.decode(int(v)) for v in stored), dtype=np.int64, count=stored.size)


def relating_reports(question: PlannedQuestion, found: Weights) -> npt.NDArray[Any]:
    """The question's reports as a cross-tab reads them (`PlannedQuestion.relating`), in the weights' order: a
    unary report's bits, or the option (a direct number's bin) an index-coded one counts for."""
    stored = _stored(question, found)
    if question.relating.unary:
        return (stored[:, None] >> np.arange(question.relating.k)) & 1
    return np.fromiter((question.cell(int(v)) for v in stored), dtype=np.int64, count=stored.size)


def _stored(question: PlannedQuestion, found: Weights) -> npt.NDArray[np.int64]:
    """The question's stored values in the weights' order; a refusal if a weighted response has none."""
    rows, values = [], []
    for response, value in Report.objects.filter(question_id=question.id).order_by().values_list("response_id",
                                                                                                  "value"):
        row = found.responses.get(response)
        if row is not None:
            rows.append(row)
            values.append(value)
    if len(rows) != found.design.n:  # every response has one report per question (submission enforces it)
        raise Unweightable(_("Question %(question)s was not answered by every weighted response.")
                           % {"question": question.order})
    return np.asarray(values, dtype=np.int64)[np.argsort(rows)]


def weigh(question: PlannedQuestion, unweighted: Estimate | None, found: Weights,
          confidence: float) -> tuple[Estimate | None, MeanEstimate | None]:
    """One question's figures under the weights: its fractions (Wilson at the effective n) and its mean: a
    numeric mean, or an ordinal mean score when every level has a score (a linear score; a ratio over the
    scored levels has no weighted form here: None)."""
    mechanism = question.mechanism
    reports = _reports(question, found)
    if question.mean or unweighted is None:
        values = per_report_values(mechanism, reports)
        lo, hi = float(mechanism.lo), float(mechanism.hi)  # type: ignore[attr-defined]  # a numeric mean's scale
        return None, weighted_mean(values, found.design, lo, hi, confidence)
    weighted = weighted_fractions(mechanism, reports, found.design, confidence)
    estimate = np.asarray(weighted.estimate)
    score = None
    if question.scores and all(v is not None for v in question.scores):
        scores = np.array([float(v or 0) for v in question.scores])  # every one given (checked above)
        unbiased = (indicators(mechanism, reports) - mechanism.q_other) / (mechanism.p - mechanism.q_other)
        score = weighted_mean(unbiased @ scores, found.design, scores.min(), scores.max(), confidence)
    low, high = weighted.ci_low, weighted.ci_high
    return replace(
        unweighted, n=weighted.n, estimate=weighted.estimate, std_error=weighted.std_error, ci_low=low,
        ci_high=high, clipped=tuple(float(x) for x in np.clip(estimate, 0.0, 1.0)),
        simplex=tuple(float(x) for x in project_to_simplex(estimate)), confidence=confidence, interval=WEIGHTED,
        simultaneous=False, ci_low_unclipped=low, ci_high_unclipped=high, inconsistent=(False,) * len(low)), score

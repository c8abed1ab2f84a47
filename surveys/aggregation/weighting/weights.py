"""Weights to population margins: every response raked (`ldp.weighting.raking`) to the population shares entered for the
survey's direct questions (PopulationMargin), and the survey's estimates under them (`ldp.weighting.estimates`), from
the
reports already stored.

Only direct questions (sent as given) can carry a margin: a respondent's category must be known to weight
them. A response without an answer to every margin question cannot be weighted and is left out of the
weighted figures (counted in `left_out`). Weights are capped at CAP times their median and raked again
(`ldp.weighting.raking.rake`); their range, Kish's design effect and the effective sample size go with the figures.
Variances are by linearization through the raking (`ldp.weighting.raking.Raked.mean`), so they account for the
weights and for the margins they were raked to.

From cells, not rows. A response's weight depends only on its **cell**, its answers to the margin questions
(tens of cells), so the raking runs over the cells with their counts, and every weighted figure is a sum over
the distinct (cell, stored value) rows of the questions it needs, each standing for its count of responses (the
raking residual is constant within such a row): `Weights.grouped`. The columns are read once per request
(`surveys.collection.report_columns`: no Python object per report) and grouped in numpy; the figures cost the
distinct rows, not the responses (a Python loop over 10^5 responses' reports cost 8 CPU-seconds before).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.utils.translation import gettext as _

from ldp.mechanisms.base import Mechanism
from ldp.regression.linear import per_report_values
from ldp.stats.estimates import Estimate, MeanEstimate, project_to_simplex
from ldp.weighting.estimates import indicators, weighted_fractions, weighted_mean
from ldp.weighting.raking import Raked, RakingError, coded_margin, margin, rake
from surveys import refusals
from surveys.collection import cell_tallies, report_columns
from surveys.collection.models import Response, Survey
from surveys.collection.plan import PlannedQuestion, Unavailable

from ..models import PopulationMargin
from ..params import BadParameter, ResultOptions
from . import cell_counts, margins

# A join reads an answer about 23 times slower than `report_columns.complete` (8.5 s a question at 10^6 responses on
# SQLite, load 4.7): at most a sixty-fourth of the values, about 4 s.
JOINED = 64
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
    """The raking of the weighted responses, over their cells (`design`: one row per cell of the margin questions,
    its `counts` the responses in it), and what the figures need of the weighted responses: their (cell, stored
    value) counts kept running (`tallied`, `surveys.collection.cell_tallies`), or each one's cell and stored value of
    each question read (`cells`, `columns`, aligned). A model's weights come from its own grouped rows (`design`
    alone)."""

    design: Raked
    margins: tuple[MarginUsed, ...]
    left_out: int  # responses without an answer to every margin question
    cells: npt.NDArray[np.int64] | None = None  # each weighted response's row of `design`
    columns: Mapping[int, npt.NDArray[np.int64]] = field(default_factory=dict)  # question id -> stored values
    tallied: cell_counts.Tallied | None = None

    def summary(self) -> dict[str, Any]:
        return {**self.design.summary(), "left_out": self.left_out}

    def grouped(self, *questions: PlannedQuestion) -> tuple[Raked, list[npt.NDArray[np.int64]]]:
        """The design over the distinct (cell, stored value of each question) rows, each standing for its count of
        responses (`ldp.weighting.raking`'s grouped rows: the figures of the responses written out), and each question's
        stored value in each row; a refusal if a weighted response has no report of one of them."""
        if self.tallied is not None and self.tallied.answers(questions):
            cell, columns, counts = self.tallied.rows(questions)
            if self.design.counts is None or counts.sum() != self.design.counts.sum():
                raise _unanswered(questions[-1])
        elif self.cells is None:
            raise ValueError("these weights carry no responses' cells nor their counts")
        else:
            for question in questions:
                column = self.columns[question.id]
                if column.size and column.min() == report_columns.MISSING:
                    raise _unanswered(question)
            rows, counts = report_columns.distinct_rows([self.cells, *(self.columns[q.id] for q in questions)])
            cell, columns = rows[:, 0], [rows[:, j] for j in range(1, rows.shape[1])]
        design = replace(self.design, weights=self.design.weights[cell], counts=counts.astype(float),
                         margins=tuple(replace(m, codes=m.codes[cell]) for m in self.design.margins))
        return design, columns


def _unanswered(question: PlannedQuestion) -> Unweightable:
    return Unweightable(_("Question %(question)s was not answered by every weighted response.")
                        % {"question": question.order})


def offer(survey: Survey, options: ResultOptions) -> dict[str, Any]:
    """The dashboard's links to weighted and unweighted figures (weighted ones only with margins)."""
    return {"can_weight": PopulationMargin.objects.filter(question__survey=survey).exists(),
            "weighted_query": replace(options, weighted=True, interval=None).query(),
            "unweighted_query": replace(options, weighted=False).query()}


def margins_of(survey: Survey) -> list[PopulationMargin]:
    """The survey's margins; Unweightable (409) naming each question whose margin went stale since it was entered
    (surveys.aggregation.weighting.margins.check): never a figure raked to impossible shares."""
    found = margins.stored(survey)
    stale = margins.check(found)
    if stale:
        raise Unweightable(stale)
    return found


def weights(survey: Survey, questions: Mapping[int, PlannedQuestion], asked: Sequence[int] = (),
            by: PlannedQuestion | None = None) -> Weights:
    """The survey's raked weights, with the (cell, stored value) counts of the `asked` questions for
    `Weights.grouped` (and of each broken down `by`): kept running (`cell_tallies`; the first time, counted from the
    reports), or read from the reports when the keys cannot code a cell (`read`); a refusal when it has no margins
    or its responses cannot meet them. `questions`: the survey's plan, by id."""
    found = required_margins(survey)
    keys = [questions[m.question_id] for m in found]
    extra = by is not None and by.id not in {q.id for q in keys}
    keys += [by] if by is not None and extra else []
    if not cell_tallies.can_key(keys):
        return read(survey, questions, [*([by.id] if by is not None else []), *asked], found)
    watch = cell_tallies.find(survey.pk, keys)
    if watch is None:
        within_a_request(survey, len(questions))
        cell_tallies.drop(survey.pk, keeping=keys[:len(found)])  # watches of margins entered before these
        try:
            watch = cell_tallies.watch(survey.pk, keys, list(questions.values()), most=_joined_at_most())
        except report_columns.TooMany:
            raise _too_many() from None
    counted = cell_tallies.read(watch, dict.fromkeys([keys[0].id, *asked]))
    tallied, counts = cell_counts.tallied(tuple(keys), extra, counted)
    values = cell_tallies.decoded(keys[:len(found)], tallied.cells)
    design, used = raked(found, questions, {m.question_id: values[j] for j, m in enumerate(found)}, counts=counts)
    left_out = Response.objects.filter(survey=survey).count() - int(counts.sum())
    return Weights(design, used, left_out, tallied=tallied)


def read(survey: Survey, questions: Mapping[int, PlannedQuestion], asked: Sequence[int],
         found: list[PopulationMargin] | None = None) -> Weights:
    """`weights` from the `asked` questions' answers read from the reports within the request (a cross-tab's two, or
    keys that cannot code a cell), as columns. `found`: the survey's margins, if already read."""
    found = required_margins(survey) if found is None else found
    margin_ids = [m.question_id for m in found]
    ids = margin_ids + [q for q in dict.fromkeys(asked) if q not in margin_ids]
    within_a_request(survey, len(ids))
    try:
        columns = dict(zip(ids, report_columns.aligned(ids, most=_joined_at_most()), strict=True))
    except report_columns.TooMany:
        raise _too_many() from None
    answered = np.logical_and.reduce([columns[q] != report_columns.MISSING for q in margin_ids])
    if not answered.all():
        columns = {q: column[answered] for q, column in columns.items()}
    design, used, cells = by_cells(found, questions, [columns[q] for q in margin_ids])
    return Weights(design, used, int(answered.size - answered.sum()), cells, columns)


def _joined_at_most() -> int:
    return settings.WEIGHT_NOW_VALUES // JOINED


def _too_many() -> Unweightable:
    return Unweightable(_(
        "Some responses lack an answer to a question these figures need, so their answers are read by a slower "
        "join: at most %(limit)s answers within a request. Ask for fewer questions (a cross-tab), or unweighted.")
        % {"limit": f"{_joined_at_most():,}"})


def by_cells(found: list[PopulationMargin], questions: Mapping[int, PlannedQuestion],
             codes: list[npt.NDArray[np.int64]]) -> tuple[Raked, tuple[MarginUsed, ...], npt.NDArray[np.int64]]:
    """`raked` over the cells of the responses whose margin answers are `codes` (one column per margin, in
    `found`'s order): the design over the cells, the margins used, and each response's cell. What the dashboard's
    figures and the exports' weight column share, so that both give every response the same weight to the bit."""
    cell_codes, cells, counts = _cells(codes)
    design, used = raked(found, questions, {m.question_id: cell_codes[:, j] for j, m in enumerate(found)},
                         counts=counts)
    return design, used, cells


def within_a_request(survey: Survey, columns: int) -> None:
    """Refused, as a 409 naming `weighted`, before anything is read: more than WEIGHT_NOW_VALUES responses x
    questions' answers to read within a request (surveys/settings.py)."""
    responses = Response.objects.filter(survey=survey).count()
    if responses * columns > settings.WEIGHT_NOW_VALUES:
        raise Unweightable(_(
            "%(responses)s responses are too many to weight within a request with %(columns)s questions' answers "
            "(at most %(limit)s answers are read); ask for it unweighted, or for fewer questions (a cross-tab).")
            % {"responses": f"{responses:,}", "columns": columns, "limit": f"{settings.WEIGHT_NOW_VALUES:,}"})


def _cells(codes: list[npt.NDArray[np.int64]]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                                       npt.NDArray[np.int64]]:
    """The distinct combinations of the margin questions' codes (one row each, sorted), each response's row among
    them, and how many responses each holds."""
    rows, counts = report_columns.distinct_rows(codes)
    if not len(rows):
        return rows, np.empty(0, dtype=np.int64), counts
    low, radices = rows.min(axis=0), np.ptp(rows, axis=0) + 1

    def coded(columns: Sequence[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
        code = np.zeros(len(columns[0]), dtype=np.int64)
        for column, lowest, radix in zip(columns, low, radices, strict=True):
            code = code * radix + (column - lowest)
        return code

    return rows, np.searchsorted(coded(list(rows.T)), coded(codes)), counts


def required_margins(survey: Survey) -> list[PopulationMargin]:
    """The survey's margins; a refusal when it has none."""
    found = margins_of(survey)
    if not found:
        raise BadParameter(FIELD, _("This survey has no population margins to weight to: a researcher of the survey "
                                    "sets them for its direct questions first (Population margins, on its results "
                                    "page)."))
    return found


def raked(found: list[PopulationMargin], questions: Mapping[int, PlannedQuestion],
          codes: dict[int, npt.NDArray[np.int64]], counts: npt.NDArray[np.int64] | None = None
          ) -> tuple[Raked, tuple[MarginUsed, ...]]:
    """The weights of the responses that answer every margin question, from each one's stored answer (`codes`,
    per margin question, one entry per such response, in the order the weights come out): what the dashboard's
    figures (`weights`), the report exports' weight column (surveys.aggregation.exports.weights) and a model
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


def as_sent(question: PlannedQuestion, stored: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
    """Stored values as the question's mechanism sent them: a unary report's bits, else the decoded report."""
    mechanism = question.mechanism
    if mechanism.unary:
        return (stored[:, None] >> np.arange(mechanism.k)) & 1
    return np.fromiter((mechanism.decode(int(v)) for v in stored), dtype=np.int64, count=stored.size)


def as_related(question: PlannedQuestion, stored: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
    """Stored values as a cross-tab reads them (`PlannedQuestion.relating`): a unary report's bits, or the option
    (a direct number's bin) an index-coded one counts for."""
    if question.relating.unary:
        return (stored[:, None] >> np.arange(question.relating.k)) & 1
    return np.fromiter((question.cell(int(v)) for v in stored), dtype=np.int64, count=stored.size)


def _degrees(mechanism: Mechanism, design: Raked) -> int | None:
    """A weighted mean's degrees of freedom: n - 1 for a number sent as given, else None (normal, as a randomized
    mean's unweighted interval). Student t, not normal: the answers' spread is estimated from the same n answers
    (the unweighted mean's reason for t), and t on responses - 1 is what Stata's svy and SAS's SURVEYMEANS give a
    design of single responses; so the page's "Student t with n - 1 degrees of freedom" holds weighted or not."""
    return design.n - 1 if mechanism.mean_interval == "t" and design.n > 1 else None


def weigh(question: PlannedQuestion, unweighted: Estimate | None, found: Weights,
          confidence: float) -> tuple[Estimate | None, MeanEstimate | None]:
    """One question's figures under the weights: its fractions (Wilson at the effective n) and its mean: a
    numeric mean, or an ordinal mean score when every level has a score (a linear score; a ratio over the
    scored levels has no weighted form here: None)."""
    mechanism = question.mechanism
    design, (stored,) = found.grouped(question)
    reports = as_sent(question, stored)  # one per distinct (cell, report) row
    if question.mean or unweighted is None:
        values = per_report_values(mechanism, reports)
        lo, hi = float(mechanism.lo), float(mechanism.hi)  # type: ignore[attr-defined]  # a numeric mean's scale
        return None, weighted_mean(values, design, lo, hi, confidence, _degrees(mechanism, design))
    weighted = weighted_fractions(mechanism, reports, design, confidence)
    estimate = np.asarray(weighted.estimate)
    score = None
    if question.scores and all(v is not None for v in question.scores):
        scores = np.array([float(v or 0) for v in question.scores])  # every one given (checked above)
        unbiased = (indicators(mechanism, reports) - mechanism.q_other) / (mechanism.p - mechanism.q_other)
        score = weighted_mean(unbiased @ scores, design, scores.min(), scores.max(), confidence)
    low, high = weighted.ci_low, weighted.ci_high
    return replace(
        unweighted, n=weighted.n, estimate=weighted.estimate, std_error=weighted.std_error, ci_low=low,
        ci_high=high, clipped=tuple(float(x) for x in np.clip(estimate, 0.0, 1.0)),
        simplex=tuple(float(x) for x in project_to_simplex(estimate)), confidence=confidence, interval=WEIGHTED,
        simultaneous=False, ci_low_unclipped=low, ci_high_unclipped=high, inconsistent=(False,) * len(low)), score

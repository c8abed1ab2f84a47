"""The cross-tab service: two questions' reports counted together in the database, debiased by `ldp`.

For questions A and B of one survey, the co-occurrence counts are running counts kept by every
submission once the pair has been related (surveys.collection.pair_tallies): the first time, one
grouped query over pairs of reports of the same response (a self-join of the report table on
response_id, GROUP BY the two stored values) counts it, linear in the responses; after that one
read of at most (cells of A) x (cells of B) x shards rows, whatever the number of responses. On a
survey too large to count a first ask within the request, `crosstab` and `break_down` raise
`pair_counting.Counting` instead, the pairs being counted in the background.
Everything else is computed from those counts, so nothing costs extra privacy: the joint table
(`ldp.estimate_joint`), the conditional fractions both ways (`ldp.estimate_conditional`), the
independence test and its debiased effect size (`ldp.independence`) and the planner for a joint
cell (`ldp.joint_respondents_needed`).

The dashboard's cross-tab and break-down, the cross-tab API and its CSV export all call `crosstab`,
so they show one set of numbers. A question that is not the survey's (or a == b) is a 400 naming
the parameter (params.BadParameter), and so is a numeric question asked for its randomized mean, which has
no answers to put in a table; every other kind relates (multi-select options as their bits, ordinal levels
and numeric bins as options, a direct number in its bins). A break-down leaves randomized means out.

Weighted (options.weighted): the responses raked to the survey's population margins
(surveys.aggregation.weighting.weights,
the weighted estimates' weights), and the joint and conditional fractions under them (`ldp.weighting.joint`: the
weighted means of the score products, their variance by the same linearization through the raking). They read
the two questions' columns of every response once, grouped with the margins' cells into distinct (cell, A, B) rows
and their counts (`weighting.Weights.grouped`), not the pair's running counts, so no pair is counted in the
background; the independence test is Rao and Scott's F on those rows (`ldp.weighting.association`); the
counts, n and the effect size are the weighted responses' own, unweighted. Refusals as the weighted
estimates': no margins is a 400 naming `weighted`, responses that cannot be raked (or a question a weighted
response did not answer, or more answers than a request may read) a 409.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.utils.translation import gettext as _

import ldp
from ldp.weighting.association import weighted_independence
from ldp.weighting.joint import weighted_conditional, weighted_joint
from ldp.weighting.raking import Raked
from surveys.collection import pair_tallies, plan
from surveys.collection.models import Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan
from surveys.localized import point

from ..params import DEFAULTS, BadParameter, ResultOptions
from ..results import too_few as rule
from ..results import versions
from ..templatetags.results_format import level, points
from ..weighting import weights as weighting
from . import pair_counting

ALPHA = 0.05  # the level at which the independence test is put in words


@dataclass(frozen=True)
class Relation:
    """The independence test (`ldp.Independence`) and what it says at ALPHA."""

    test: ldp.Independence
    alpha: float = ALPHA

    @property
    def related(self) -> bool:
        return self.test.p_value < self.alpha

    @property
    def statement(self) -> str:
        values = {"p": _p_text(self.test.p_value), "alpha": point(f"{self.alpha:g}"),
                  "v": point(f"{self.test.cramers_v:.2f}")}
        if self.related:
            return _("The answers are related: a relation this strong in the randomized reports would be rare "
                     "if they were independent (%(p)s, below %(alpha)s). Estimated strength (Cramér's V, "
                     "debiased): %(v)s.") % values
        return _("No evidence that the answers are related (%(p)s, not below %(alpha)s). This does not show "
                 "that they are independent: the randomization hides weak relations unless there are many "
                 "respondents. Estimated strength (Cramér's V, debiased): %(v)s.") % values


@dataclass(frozen=True)
class CrossTab:
    """Two questions counted together. With n = 0 (nobody answered both) there are counts only."""

    survey: Survey
    a: PlannedQuestion
    b: PlannedQuestion
    options: ResultOptions
    counts: ldp.JointCounts | None  # None when n = 0
    needed: int  # respondents for a joint cell's margin, worst case
    weights: weighting.Weights | None = None  # weighted figures: the weights they are under
    reports: tuple[Any, Any] | None = None  # weighted only: A's and B's reports in each row of `design`
    design: Raked | None = None  # weighted only: the weights over the distinct (cell, A, B) rows

    @property
    def n(self) -> int:
        return 0 if self.counts is None else self.counts.n

    @property
    def confidence(self) -> float:
        return self.options.confidence

    @property
    def margin(self) -> float:
        return self.options.margin

    @property
    def still_needed(self) -> int:
        return max(0, self.needed - self.n)

    @property
    def too_few(self) -> bool:
        """The one rule (`too_few`) with a joint cell's planner: the figures carry `warning`."""
        return rule.too_few(self.n, self.needed)

    @property
    def enough(self) -> bool:
        return not self.too_few

    @property
    def warning(self) -> str | None:
        return rule.crosstab_warning(self.n, self.needed, points(self.margin), level(self.confidence))

    @cached_property
    def joint(self) -> ldp.JointEstimate | None:
        if self.counts is None:
            return None
        if self.design is not None and self.reports is not None:
            return weighted_joint(self.a.relating, self.reports[0], self.b.relating, self.reports[1],
                                  self.design, confidence=self.confidence)
        return ldp.estimate_joint(self.a.relating, self.b.relating, self.counts, confidence=self.confidence)

    @cached_property
    def b_given_a(self) -> ldp.Conditional | None:
        """P(B = b | A = a), rows a."""
        return self._conditional("a")

    @cached_property
    def a_given_b(self) -> ldp.Conditional | None:
        """P(A = a | B = b), rows b."""
        return self._conditional("b")

    @cached_property
    def relation(self) -> Relation | None:
        if self.counts is None:
            return None
        if self.design is not None and self.reports is not None:
            return Relation(weighted_independence(self.a.relating, self.reports[0], self.b.relating, self.reports[1],
                                                  self.design, self.counts))
        return Relation(ldp.independence(self.a.relating, self.b.relating, self.counts))

    @cached_property
    def cells(self) -> list[Cell]:
        """Every cell, rows of A by columns of B; empty when n = 0."""
        e, ba, ab, c = self.joint, self.b_given_a, self.a_given_b, self.counts
        if e is None or ba is None or ab is None or c is None:
            return []
        return [Cell(i, label_a, j, label_b, int(c.pairs[i, j]),
                     (e.estimate[i][j], e.std_error[i][j], e.ci_low[i][j], e.ci_high[i][j]),
                     (ba.estimate[i][j], ba.std_error[i][j], ba.ci_low[i][j], ba.ci_high[i][j], ba.bounded[i]),
                     (ab.estimate[j][i], ab.std_error[j][i], ab.ci_low[j][i], ab.ci_high[j][i], ab.bounded[j]))
                for i, label_a in enumerate(self.a.options) for j, label_b in enumerate(self.b.options)]

    @property
    def grid(self) -> list[tuple[str, list[Cell]]]:
        """The cells as rows: (A's answer, its cells across B's answers)."""
        k = len(self.b.options)
        return [(label, self.cells[i * k:(i + 1) * k]) for i, label in enumerate(self.a.options) if self.cells]

    @property
    def columns(self) -> list[tuple[str, list[Cell]]]:
        """The cells by B's answer: (B's answer, its cells across A's answers)."""
        return [(label, self.cells[j::len(self.b.options)]) for j, label in enumerate(self.b.options) if self.cells]

    def _conditional(self, given: str) -> ldp.Conditional | None:
        if self.counts is None:
            return None
        if self.design is not None and self.reports is not None:
            return weighted_conditional(self.a.relating, self.reports[0], self.b.relating, self.reports[1],
                                        self.design, given=given, confidence=self.confidence)
        return ldp.estimate_conditional(self.a.relating, self.b.relating, self.counts, given=given,
                                        confidence=self.confidence)


def _p_text(p: float) -> str:
    """"p = 0.0123", or "p < 0.0001" for a smaller one (never "p = < 0.0001")."""
    return "p < " + point("0.0001") if p < 1e-4 else "p = " + point(f"{p:.4f}".rstrip("0").rstrip("."))


@dataclass(frozen=True)
class Cell:
    """One (answer a to A, answer b to B) cell: its count, joint estimate and both conditionals."""

    a_index: int
    a_label: str
    b_index: int
    b_label: str
    count: int  # responses whose report to A counts for a and whose report to B counts for b
    joint: tuple[float, float, float, float]  # estimate, std error, interval low, high
    b_given_a: tuple[float, float, float, float, bool]  # P(B = b | A = a): the same, and bounded
    a_given_b: tuple[float, float, float, float, bool]  # P(A = a | B = b)


def question(current: SurveyPlan, question_id: int | None, name: str) -> PlannedQuestion:
    """The survey's question with this id; a 400 naming the parameter otherwise."""
    if question_id is None:
        raise BadParameter(name, "required: the id of one of this survey's questions")
    for found in current:
        if found.id == question_id:
            if not found.relatable:
                raise BadParameter(name, "not available for this type of question: a numeric question asked for "
                                         "its mean has no answers to count in a table (ask it with bins to relate it)")
            return found
    raise BadParameter(name, "no question of this survey has this id")


def crosstab(survey: Survey, options: ResultOptions = DEFAULTS, current: SurveyPlan | None = None,
             wait: float = pair_counting.WAIT) -> CrossTab:
    """The cross-tab of questions options.a and options.b of `survey` (both required, different); `wait`:
    `pair_counting.ensure`'s."""
    current = current or plan.of(survey)
    versions.check(survey, current)
    a, b = question(current, options.a, "a"), question(current, options.b, "b")
    if a.id == b.id:
        raise BadParameter("b", "must be a different question from a")
    if options.weighted:
        return weighted(survey, a, b, options, weighting.read(survey, {q.id: q for q in current}, [a.id, b.id]))
    pair_counting.ensure(survey, [(a, b)], wait)  # pair_counting.Counting: being counted in the background
    return of_questions(survey, a, b, options)


def weighted(survey: Survey, a: PlannedQuestion, b: PlannedQuestion, options: ResultOptions,
             found: weighting.Weights) -> CrossTab:
    """The cross-tab under the weights, from the distinct (cell, A's report, B's report) rows of the weighted
    responses and their counts (`weighting.Weights.grouped`)."""
    design, (stored_a, stored_b) = found.grouped(a, b)
    reports = (weighting.as_related(a, stored_a), weighting.as_related(b, stored_b))
    # As `relating` stores them: a unary report as is (its bits are the reports), an index one's option (its bin).
    counts = ldp.JointCounts.from_values(a.relating, b.relating, stored_a if a.relating.unary else reports[0],
                                         stored_b if b.relating.unary else reports[1], design.counts)
    needed = ldp.joint_respondents_needed(a.relating, b.relating, options.margin, options.confidence)
    return CrossTab(survey=survey, a=a, b=b, options=options, counts=counts, needed=needed, weights=found,
                    reports=reports, design=design)


def of_questions(survey: Survey, a: PlannedQuestion, b: PlannedQuestion,
                 options: ResultOptions = DEFAULTS) -> CrossTab:
    """The cross-tab of two questions of the survey's plan (not checked here: `crosstab` checks)."""
    return from_counts(survey, a, b, pair_counts(a, b), options)


def from_counts(survey: Survey, a: PlannedQuestion, b: PlannedQuestion, counts: ldp.JointCounts | None,
                options: ResultOptions = DEFAULTS) -> CrossTab:
    needed = ldp.joint_respondents_needed(a.relating, b.relating, options.margin, options.confidence)
    return CrossTab(survey=survey, a=a, b=b, options=options, counts=counts, needed=needed)


def pair_counts(a: PlannedQuestion, b: PlannedQuestion) -> ldp.JointCounts | None:
    """Co-occurrence counts of A's and B's reports over the responses with both (None if none), from
    the pair's running counts (`pair_tallies`): counted from the reports the first time the pair is
    related, kept current by every submission after that."""
    return pair_tallies.counts(a, b)


def pair_counts_sql(a: int, b: int) -> tuple[str, list[int]]:
    """The grouped self-join that counts a pair from the reports (its first time; `pair_tallies`)."""
    return pair_tallies.self_join_sql(a, b)


@dataclass(frozen=True)
class BreakDown:
    """Every other question's conditional fractions P(Q = q | G = g) within the groups of G."""

    by: PlannedQuestion
    tables: list[CrossTab]  # a = the grouping question, b = each other question in order


def break_down(survey: Survey, options: ResultOptions, current: SurveyPlan | None = None,
               wait: float = pair_counting.WAIT) -> BreakDown:
    """The break-down by question options.by: one grouped query per other question; `wait`:
    `pair_counting.ensure`'s."""
    current = current or plan.of(survey)
    versions.check(survey, current)
    by = question(current, options.by, "by")
    others = [other for other in current if other.id != by.id and other.relatable]
    if options.weighted:
        found = weighting.weights(survey, {q.id: q for q in current}, [other.id for other in others], by=by)
        return BreakDown(by=by, tables=[weighted(survey, by, other, options, found) for other in others])
    pair_counting.ensure(survey, [(by, other) for other in others], wait)  # or pair_counting.Counting
    return BreakDown(by=by, tables=[of_questions(survey, by, other, options) for other in others])

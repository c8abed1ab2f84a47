"""The results service: report counts from the database, debiased by `ldp`.

Dashboards, the estimates API and the exports all call this module, so they show one
set of numbers. The counts come from the running tallies (surveys.collection.tallies):
counters per question and option (or bit) and n, kept current by every writer of reports
in the same transaction, read with one SUM ... GROUP BY (question, slot) over at most
(options + 1) x shards rows per question. The cost does not grow with the number of
reports (see bench/results_bench.py). `tallies.count_from_reports` still counts from the
reports themselves, linear in n, for verification (`manage.py rebuild_counts --verify`).
A survey whose stored configuration or counts cannot be read raises `Unavailable`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from django.db.models import OuterRef, QuerySet, Subquery, Sum
from django.utils.translation import gettext as _

import ldp
from surveys.collection import plan, skip_logic, tallies
from surveys.collection.models import TALLY_N_SLOT, Survey, Tally
from surveys.collection.plan import PlannedQuestion, SurveyPlan, Unavailable

__all__ = ["QuestionResult", "SurveyResults", "SurveySummary", "Unavailable", "overview", "survey_results"]

from .. import params
from ..params import DEFAULTS, ResultOptions
from ..templatetags.results_format import level as level_text
from ..templatetags.results_format import plusminus, points
from ..weighting import weights as weighting
from . import anytime, means, sequence_plan, versions
from . import too_few as rule
from .anytime import Anytime
from .fixed_n import FixedN
from .policy import Policy

SAME = 1e-9  # a post-processed value this close to the unbiased one is not a different figure


@dataclass(frozen=True)
class OptionRow:
    index: int
    label: str
    count: int
    estimate: float
    std_error: float
    ci_low: float
    ci_high: float
    clipped: float
    simplex: float
    ci_low_unclipped: float
    ci_high_unclipped: float
    inconsistent: bool  # the whole interval lies outside [0, 1]: the reports do not fit the mechanism


@dataclass(frozen=True)
class QuestionResult:
    question: PlannedQuestion
    estimate: ldp.Estimate | None  # per-option fractions; None for a numeric question asked for its mean
    level: float  # each interval's own level: the confidence, or its Bonferroni share (a sequence: of its level)
    margin_now: float  # worst-case half-width reached with n reports; inf at n = 0 (a mean: in its units)
    margin: float  # the planner's target half-width (a mean: in its units, a fraction of its range)
    needed: int  # respondents for `margin` at `planner_at`, worst case
    mean: ldp.MeanEstimate | None = None  # a numeric question's mean, an ordinal question's mean score
    interval: str = params.FIXED_DEFAULT  # the kind of the options' (or numeric mean's) intervals
    # The level `needed` is figured at, where it is not `level`: the confidence asked for, while a sequence's level
    # is the survey's planned confidence (the planner follows the confidence box, the sequences never do).
    planner_level: float | None = None
    asked_of: str = ""  # skip logic: its condition in words (its figures are over those asked); empty: everyone

    @property
    def planner_at(self) -> float:
        """The level the planner's respondents needed (and the warning while too few) speak of."""
        return self.level if self.planner_level is None else self.planner_level

    @property
    def anytime(self) -> bool:
        """Whether this question's figures hold however often the results are looked at (an ordinal
        question's mean score never does: `ldp` has no sequence for it)."""
        return self.interval == params.ANYTIME

    @property
    def weighted(self) -> bool:
        """Whether these figures are under the population margins' weights (their words then say so)."""
        return self.interval == weighting.WEIGHTED

    @property
    def mechanism(self) -> ldp.Mechanism:
        return self.question.mechanism

    @property
    def n(self) -> int:
        if self.estimate is not None:
            return self.estimate.n
        return self.mean.n if self.mean is not None else 0

    @property
    def mean_leaves_out(self) -> str:
        """An ordinal question's levels without a score (left out of its mean score), in words."""
        return ", ".join(f"“{label}”" for label, score in zip(self.question.options, self.question.scores, strict=False)
                         if score is None)

    @property
    def is_mean(self) -> bool:
        """A numeric question asked for its mean: a mean in its units, no per-option fractions."""
        return self.question.mean

    @property
    def still_needed(self) -> int:
        return max(0, self.needed - self.n)

    @property
    def too_few(self) -> bool:
        """Whether n is below the planner's respondents for the chosen margin at this level (`too_few`):
        the dashboard then shows the raw counts and the planner, not the estimates; elsewhere they carry
        `warning`."""
        return rule.too_few(self.n, self.needed)

    @property
    def enough(self) -> bool:
        return not self.too_few

    @property
    def warning(self) -> str | None:
        """Why these estimates are not to be read alone, while too few; None otherwise."""
        margin = plusminus(self.margin) if self.is_mean else points(self.margin)
        return rule.question_warning(self.n, self.needed, margin, level_text(self.planner_at),
                                     self.mechanism.randomized)

    @property
    def clipping_differs(self) -> bool:
        """Whether clipping to [0, 1] changed any option's estimate (else that column says nothing new)."""
        return self.estimate is not None and _differs(self.estimate.clipped, self.estimate.estimate)

    @property
    def simplex_differs(self) -> bool:
        """Whether the projection onto the simplex (summing to 100%) changed any option's estimate;
        never for a multi-select, whose fractions need not add up to 100%."""
        return (self.estimate is not None and self.mechanism.one_of_k
                and _differs(self.estimate.simplex, self.estimate.estimate))

    @property
    def inconsistent(self) -> bool:
        """Whether some option's whole interval lies outside 0-100%: data that do not fit the mechanism."""
        return self.estimate is not None and any(self.estimate.inconsistent)

    @property
    def counts_are(self) -> str:
        return "reports with a 1 in each option's bit" if self.mechanism.unary else "reports of each option"

    @property
    def rows(self) -> list[OptionRow]:
        """One row per option (level, bin); none for a numeric mean. A multi-select has no simplex
        projection (its answers are subsets): NaN there."""
        e = self.estimate
        if e is None:
            return []
        simplex = e.simplex if self.mechanism.one_of_k else (math.nan,) * len(e.simplex)
        columns = (self.question.options, e.counts, e.estimate, e.std_error, e.ci_low, e.ci_high, e.clipped, simplex,
                   e.ci_low_unclipped, e.ci_high_unclipped, e.inconsistent)
        return [OptionRow(j, *values) for j, values in enumerate(zip(*columns, strict=True))]


@dataclass(frozen=True)
class SurveyResults:
    survey: Survey
    options: ResultOptions
    responses: int
    epsilon_total: float
    questions: list[QuestionResult]
    planned: int | None = None  # the sequences' planning size while they are shown, else None
    # Their level while they are shown, else None: the survey's planned confidence, fixed at Open (a survey opened
    # before plans were stored: the confidence asked for), never the confidence box's.
    sequence_confidence: float | None = None
    weights: weighting.Weights | None = None  # the weights the figures are under, if they are weighted

    @property
    def needed(self) -> int:
        """The survey-wide planner: respondents that give the chosen margin on every question."""
        return max((question.needed for question in self.questions), default=0)

    @property
    def still_needed(self) -> int:
        return max(0, self.needed - self.responses)

    @property
    def sequence_note(self) -> str | None:
        """Why the intervals valid however often you look are not at the confidence asked for; None when they are
        (or none are shown). The confidence is not refused: it still sets the planner and the fixed-n intervals."""
        asked = self.options.confidence
        if self.sequence_confidence is None or self.sequence_confidence == asked:
            return None
        return _("The intervals valid however often you look are at %(level)s, the confidence fixed when the survey "
                 "opened; the confidence asked for (%(asked)s) sets the fixed-n intervals and the planner only.") % {
            "level": level_text(self.sequence_confidence), "asked": level_text(asked)}

    @property
    def direct(self) -> list[QuestionResult]:
        """The questions asked directly (not randomized): outside epsilon_total."""
        return [question for question in self.questions if not question.mechanism.randomized]


def _differs(post_processed: tuple[float, ...], unbiased: tuple[float, ...]) -> bool:
    return any(abs(a - b) > SAME for a, b in zip(post_processed, unbiased, strict=True)
               if math.isfinite(a) and math.isfinite(b))


def survey_results(survey: Survey, options: ResultOptions = DEFAULTS) -> SurveyResults:
    """Debiased estimates, intervals and the sample-size planner for every question, under one interval policy
    for the whole survey (`policy`): without an interval asked for, intervals valid however often you look while
    the survey is open, fixed-n ones once closed."""
    options = options.resolved(survey.status == Survey.Status.OPEN)
    current = plan.of(survey)
    versions.check(survey, current)
    counted = tallies.read(current)
    found = means.histograms(current)
    chosen = policy(options, current)
    questions = [QuestionResult(question=q, **vars(chosen.answer(q, *counted[q.id], found.get(q.id))),
                                asked_of=skip_logic.words(q, current)) for q in current]
    weights = None
    if options.weighted:
        weights = weighting.weights(survey, {q.id: q for q in current}, [q.id for q in current])
        questions = [_weighted(result, weights, options.confidence) for result in questions]
    return SurveyResults(survey=survey, options=options, responses=_responses(counted),
                         epsilon_total=current.epsilon_total, questions=questions, planned=chosen.planned,
                         sequence_confidence=chosen.sequence_confidence, weights=weights)


def policy(options: ResultOptions, current: SurveyPlan) -> Policy:
    """The interval policy `options` ask for (resolved): the sequences' at their stored plan, or fixed-n."""
    if options.interval != params.ANYTIME:
        return FixedN(options)
    sequences = sequence_plan.of_plan(current)
    return Anytime(options, sequences.size, sequences.level(options.confidence))


def needed(question: PlannedQuestion, options: ResultOptions) -> int:
    """The planner's respondents for one question under `options` (what its too-few rule compares n with); for
    intervals valid at any time, a margin that holds at every look."""
    if options.interval == params.ANYTIME:
        return anytime.question_needed(question, options.margin, options.confidence)
    return FixedN(options).needed(question)


def _weighted(result: QuestionResult, weights: weighting.Weights, confidence: float) -> QuestionResult:
    estimate, mean = weighting.weigh(result.question, result.estimate, weights, confidence)
    return replace(result, estimate=estimate, mean=mean, level=confidence, interval=weighting.WEIGHTED)


def _responses(counted: tallies.Counted) -> int:
    """Every response has exactly one report per question (submission and demo enforce it),
    so the number of responses is the questions' n, read from the tallies in constant time."""
    return max((n for _, n in counted.values()), default=0)


@dataclass(frozen=True)
class SurveySummary:
    survey: Survey
    responses: int
    questions: int | None  # None (as the epsilon) when the configuration cannot be read
    epsilon_total: float | None


def overview(surveys: QuerySet[Survey]) -> list[SurveySummary]:
    """One line per survey for the researcher's list (three queries in all)."""
    # Responses per survey from the tallies (n of its first question), not a scan of responses.
    responses = (Tally.objects.filter(question__survey=OuterRef("pk"), slot=TALLY_N_SLOT).order_by()
                 .values("question_id").annotate(c=Sum("count")).order_by("-c").values("c")[:1])
    annotated = list(surveys.annotate(n_responses=Subquery(responses)))
    plans = plan.of_many(survey.pk for survey in annotated)
    summaries = []
    for survey in annotated:
        found = plans[survey.pk]
        epsilon, questions = (None, None) if isinstance(found, Unavailable) else (found.epsilon_total, len(found))
        summaries.append(SurveySummary(survey, survey.n_responses or 0, questions, epsilon))
    return summaries

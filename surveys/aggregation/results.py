"""The results service: report counts from the database, debiased by `ldp`.

Dashboards, the estimates API and the exports all call this module, so they show one
set of numbers. The counts come from the running tallies (surveys.collection.tallies):
counters per question and option (or bit) and n, kept current by every writer of reports
in the same transaction, read with one SUM ... GROUP BY (question, slot) over at most
(options + 1) x shards rows per question. The cost does not grow with the number of
reports (see the `bench_results` command). `count_reports_scan` still counts from the
reports themselves, linear in n, for verification (`manage.py rebuild_counts --verify`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from django.db.models import OuterRef, Subquery, Sum

import ldp
from surveys.collection import tallies
from surveys.collection.models import TALLY_N_SLOT, Question, Survey, Tally

from .params import DEFAULTS, ResultOptions


class Unavailable(Exception):
    """The survey's stored configuration cannot be read as mechanisms (only possible for
    surveys edited outside the admin); there is nothing sound to compute."""


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


@dataclass(frozen=True)
class QuestionResult:
    question: Question
    labels: tuple[str, ...]
    mechanism: ldp.Mechanism
    estimate: ldp.Estimate
    level: float  # each interval's own level: the confidence, or its Bonferroni share
    margin_now: float  # worst-case half-width reached with n reports; inf at n = 0
    margin: float  # the planner's target half-width
    needed: int  # respondents for `margin` at `level`, worst case

    @property
    def key(self) -> str:
        return f"q{self.question.order}"

    @property
    def n(self) -> int:
        return self.estimate.n

    @property
    def still_needed(self) -> int:
        return max(0, self.needed - self.n)

    @property
    def unary(self) -> bool:
        return self.mechanism.sampler()["kind"] == "unary"

    @property
    def q_equivalent(self) -> float | None:
        """For yes/no questions, the q of q-RR with the same channel (tanh(eps / 2))."""
        if self.mechanism.name not in ldp.YES_NO:
            return None
        return ldp.q_from_epsilon(self.mechanism.effective_epsilon)

    @property
    def rows(self) -> list[OptionRow]:
        e = self.estimate
        return [OptionRow(j, label, *values) for j, (label, *values) in enumerate(zip(
            self.labels, e.counts, e.estimate, e.std_error, e.ci_low, e.ci_high, e.clipped, e.simplex))]

    def as_dict(self) -> dict:
        m = self.mechanism
        return {
            "id": self.question.pk,
            "key": self.key,
            "order": self.question.order,
            "text": self.question.text,
            "kind": self.question.kind,
            "n": self.n,
            "mechanism": {
                "name": m.name, "label": m.label, "parameters": m.to_dict(),
                "effective_epsilon": m.effective_epsilon, "q_equivalent": self.q_equivalent,
                "p": m.p, "q": m.q,
            },
            "counts_are": "reports with a 1 in each option's bit" if self.unary else "reports of each option",
            "interval_level": self.level,
            "options": [
                {"index": r.index, "label": r.label, "count": r.count, "estimate": _number(r.estimate),
                 "std_error": _number(r.std_error), "ci_low": r.ci_low, "ci_high": r.ci_high,
                 "post_processed": {"clipped": _number(r.clipped), "simplex": _number(r.simplex)}}
                for r in self.rows
            ],
            "planner": {"margin_now": _number(self.margin_now), "margin": self.margin,
                        "respondents_needed": self.needed, "still_needed": self.still_needed},
        }


@dataclass(frozen=True)
class SurveyResults:
    survey: Survey
    options: ResultOptions
    responses: int
    epsilon_total: float
    questions: list[QuestionResult]

    def as_dict(self) -> dict:
        o = self.options
        return {
            "survey": {"slug": self.survey.slug, "title": self.survey.title, "status": self.survey.status,
                       "epsilon_total": self.epsilon_total, "epsilon_budget": self.survey.epsilon_budget,
                       "responses": self.responses},
            "confidence": o.confidence, "interval": o.interval, "simultaneous": o.simultaneous,
            "questions": [question.as_dict() for question in self.questions],
        }


def questions_with_mechanisms(survey: Survey) -> list[tuple[Question, ldp.Mechanism]]:
    """The survey's questions in order with their mechanisms (two queries: questions, options)."""
    try:
        return tallies.survey_pairs(survey)
    except tallies.CountError as error:
        raise Unavailable(str(error)) from None


def count_reports(pairs) -> dict[int, tuple[np.ndarray, int]]:
    """question id -> (counts per option, n reports), read from the running tallies.

    One grouped query over (question, slot, shard) rows: the cost grows with options x
    shards, not with the number of reports. Every writer keeps the tallies current
    (see surveys.collection.tallies); `count_reports_scan` recounts from the reports.
    """
    try:
        return tallies.read(pairs)
    except tallies.CountError as error:
        raise Unavailable(str(error)) from None


def count_reports_scan(pairs) -> dict[int, tuple[np.ndarray, int]]:
    """The same counts from the Report table (linear in reports): for checks and rebuilds."""
    try:
        return tallies.count_from_reports(pairs)
    except tallies.CountError as error:
        raise Unavailable(str(error)) from None


def survey_results(survey: Survey, options: ResultOptions = DEFAULTS) -> SurveyResults:
    """Debiased estimates, intervals and the sample-size planner for every question."""
    pairs = questions_with_mechanisms(survey)
    counted = count_reports(pairs)
    questions = [_question_result(q, m, *counted[q.pk], options) for q, m in pairs]
    return SurveyResults(
        survey=survey, options=options, responses=_responses(counted),
        epsilon_total=ldp.survey_epsilon(m for _, m in pairs), questions=questions,
    )


def _responses(counted) -> int:
    """Every response has exactly one report per question (submission and demo enforce it),
    so the number of responses is the questions' n, read from the tallies in constant time."""
    return max((n for _, n in counted.values()), default=0)


def _question_result(question, mechanism, counts, n, options: ResultOptions) -> QuestionResult:
    estimate = mechanism.estimate(counts, n, confidence=options.confidence, interval=options.interval,
                                  simultaneous=options.simultaneous)
    # The planner speaks of the same intervals the table shows, Bonferroni share included.
    level = 1.0 - (1.0 - options.confidence) / mechanism.k if options.simultaneous else options.confidence
    return QuestionResult(
        question=question, labels=tuple(question.labels()), mechanism=mechanism, estimate=estimate,
        level=level, margin_now=ldp.margin_at(mechanism, n, level), margin=options.margin,
        needed=ldp.respondents_needed(mechanism, options.margin, level),
    )


@dataclass(frozen=True)
class SurveySummary:
    survey: Survey
    responses: int
    questions: int
    epsilon_total: float | None  # None when the configuration cannot be read


def overview(surveys) -> list[SurveySummary]:
    """One line per survey for the researcher's list (three queries in all)."""
    # Responses per survey from the tallies (n of its first question), not a scan of responses.
    responses = (Tally.objects.filter(question__survey=OuterRef("pk"), slot=TALLY_N_SLOT).order_by()
                 .values("question_id").annotate(c=Sum("count")).order_by("-c").values("c")[:1])
    surveys = surveys.annotate(n_responses=Subquery(responses)).prefetch_related("questions__options")
    summaries = []
    for survey in surveys:
        questions = list(survey.questions.all())
        try:
            epsilon = ldp.survey_epsilon(q.mechanism() for q in questions)
        except (ValueError, TypeError):
            epsilon = None
        summaries.append(SurveySummary(survey, survey.n_responses or 0, len(questions), epsilon))
    return summaries


def _number(x: float) -> float | None:
    """JSON has no NaN or infinity: undefined values (no reports yet) become null."""
    return x if math.isfinite(x) else None

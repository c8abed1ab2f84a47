"""Models of a survey's answers: a randomized question explained by the questions asked directly, fitted with
`ldp` from the reports already stored (no extra privacy cost).

- A randomized yes/no question, or one option (`level`) of a randomized k-option question, is modelled by
  logistic regression through its mechanism's exact binary channel, P(report = 1 | x) = q + (p - q) s(x'b)
  (`ldp.logistic`): odds ratios, the likelihood-ratio test against the intercept-only model (a Wald test when
  weighted), standard errors from the observed information (default) or the outer product of scores.
- A randomized numeric mean (1-bit mean, discrete Laplace) by least squares of its unbiased per-report values,
  with robust (HC1) standard errors (`ldp.linear_model`).
- Covariates are direct questions (sent as given, so a respondent's category is known): a single choice as
  indicators against a reference option (its first unless chosen), a direct number as a number, optionally
  with its square. What a question is, is asked of its mechanism (`randomized`, `one_of_k`, `estimates_mean`).

The rows are the responses with a report for every question used (the others are counted in `dropped`).
Weighted, they are raked to the survey's population margins (`weighting.weights` over those rows) and the
fit takes the sandwich variance through the raking. No model on too few respondents: the early-results rule
of the outcome's own estimates (`too_few`). A fit that does not converge, or whose data separate, is refused
with the reason, as are covariates that are collinear or an option nobody in the rows chose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.utils.translation import gettext as _

from ldp import linear_model, logistic
from ldp.logistic_power import respondents_for_odds_ratio
from surveys import refusals
from surveys.collection import plan
from surveys.collection.models import Report, Response, Survey
from surveys.collection.plan import PlannedQuestion

from . import results, too_few, versions, weighting
from .model_params import ModelQuery
from .params import BadParameter, ResultOptions

LOGISTIC, LINEAR = "logistic", "linear"
INTERCEPT = "(Intercept)"
POWER = 0.8  # the power calculation's target
EXPOSED = 0.5  # ... for a binary covariate held by this share of respondents


class NotModelled(plan.Unavailable):
    """The stored reports cannot give this model (too few respondents, separation, no convergence, collinear
    covariates): a 409 naming the part at fault."""

    def __init__(self, field: str, reason: str):
        refusals.Refusal.__init__(self, field, reason)


@dataclass(frozen=True)
class Term:
    key: str  # stable: "(Intercept)", "q2=1" (option 1 of q2 against its reference), "q5", "q5^2"
    label: str  # for people


@dataclass(frozen=True)
class Power:
    odds_ratio: float
    baseline: float  # the outcome's present prevalence (debiased, clipped to 1-99%)
    exposed: float
    alpha: float
    power: float
    respondents: int


@dataclass(frozen=True)
class FittedModel:
    query: ModelQuery
    kind: str  # LOGISTIC or LINEAR
    outcome: PlannedQuestion
    level: int | None
    terms: tuple[Term, ...]
    references: tuple[tuple[PlannedQuestion, str], ...]  # each single-choice covariate and its reference option
    estimate: tuple[float, ...]
    std_error: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    odds_ratio: tuple[float, ...] | None
    odds_ratio_low: tuple[float, ...] | None
    odds_ratio_high: tuple[float, ...] | None
    n: int
    dropped: int  # the survey's responses without a report for every question used (or outside the weights)
    needed: int  # the early-results rule's respondents
    log_likelihood: float | None
    null_log_likelihood: float | None
    test: str | None  # "likelihood ratio" or "wald"
    statistic: float | None
    df: int | None
    p_value: float | None
    se: str  # observed, opg, sandwich, HC1
    confidence: float
    weights: weighting.Weights | None
    power: Power | None

    @property
    def level_label(self) -> str | None:
        return None if self.level is None else self.outcome.options[self.level]

    @property
    def term_keys(self) -> list[str]:
        return [t.key for t in self.terms]

    @property
    def term_labels(self) -> list[str]:
        return [t.label for t in self.terms]

    @property
    def reference_rows(self) -> list[dict[str, Any]]:
        return [{"question": q.id, "option": label} for q, label in self.references]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per term: the coefficient table."""
        found = []
        for i, term in enumerate(self.terms):
            row = {"term": term.key, "label": term.label, "estimate": self.estimate[i],
                   "std_error": self.std_error[i], "ci_low": self.ci_low[i], "ci_high": self.ci_high[i],
                   "odds_ratio": None, "odds_ratio_low": None, "odds_ratio_high": None}
            if self.odds_ratio is not None and self.odds_ratio_low is not None and self.odds_ratio_high is not None:
                row.update(odds_ratio=self.odds_ratio[i], odds_ratio_low=self.odds_ratio_low[i],
                           odds_ratio_high=self.odds_ratio_high[i])
            found.append(row)
        return found


@dataclass(frozen=True)
class Covariate:
    question: PlannedQuestion
    numeric: bool
    reference: int  # single choice: the reference option
    squared: bool


def choices(current: plan.SurveyPlan) -> dict[str, list[PlannedQuestion]]:
    """What the Models form offers: outcomes (randomized, one answer of k options or a mean) and covariates
    (direct single choices and numbers)."""
    return {"outcomes": [q for q in current if _outcome_kind(q) is not None],
            "covariates": [q for q in current if _covariate_numeric(q) is not None]}


def fit(survey: Survey, query: ModelQuery) -> FittedModel:
    """The model `query` asks for, fitted on the survey's stored reports; a refusal saying why not."""
    current = plan.of(survey)
    versions.check(survey, current)
    questions = {q.id: q for q in current}
    outcome, kind, level = _outcome(questions, query)
    covariates = _covariates(questions, query, outcome)
    used = [outcome.id, *(c.question.id for c in covariates)]
    columns = {q: _stored(q) for q in used}
    complete = set.intersection(*(set(column) for column in columns.values()))
    found = None
    if query.weighted:
        found = weighting.weights(survey, questions, among=complete)
        order = sorted(found.responses, key=found.responses.__getitem__)
    else:
        order = sorted(complete, key=str)
    n, total = len(order), Response.objects.filter(survey=survey).count()
    options = ResultOptions(confidence=query.confidence, margin=query.margin).resolved(
        survey.status == Survey.Status.OPEN)
    needed = results.needed(outcome, options)
    if too_few.too_few(n, needed):
        raise NotModelled("outcome", _(
            "Too few respondents for a model: %(n)s responses answer every question used, of the %(needed)s "
            "needed before the estimates of question %(order)s are shown. The randomization would dominate.")
            % {"n": n, "needed": needed, "order": outcome.order})
    stored = {q: np.fromiter((columns[q][r] for r in order), dtype=np.int64, count=n) for q in used}
    x, terms = _design_matrix(covariates, stored, n)
    design = None if found is None else found.design
    common = {"query": query, "outcome": outcome, "level": level, "terms": tuple(terms), "n": n,
              "dropped": total - n, "needed": needed, "weights": found,
              "references": tuple((c.question, c.question.options[c.reference]) for c in covariates if not c.numeric)}
    if kind == LINEAR:
        values = linear_model.per_report_values(outcome.mechanism, _decoded(outcome, stored[outcome.id]))
        return _linear(values, x, design, query, common)
    y = _binary(outcome, stored[outcome.id], level)
    return _logistic(y, x, design, query, common)


def _outcome(questions: dict[int, PlannedQuestion], query: ModelQuery) -> tuple[PlannedQuestion, str, int | None]:
    outcome = questions.get(query.outcome)
    if outcome is None:
        raise BadParameter("outcome", _("not a question of this survey"))
    kind = _outcome_kind(outcome)
    if kind is None:
        if not outcome.mechanism.randomized:
            raise BadParameter("outcome", _("question %(order)s is asked directly: it can be a covariate; the "
                                            "outcome is a randomized question") % {"order": outcome.order})
        raise BadParameter("outcome", _("question %(order)s cannot be modelled: the outcome is a randomized "
                                        "yes/no question, one option of a randomized choice, or a randomized "
                                        "numeric mean") % {"order": outcome.order})
    if query.se == "opg" and (kind == LINEAR or query.weighted):
        raise BadParameter("se", _("the outer product of scores is for unweighted logistic models (weighted ones "
                                   "take the sandwich, linear ones robust standard errors)"))
    if kind == LINEAR:
        if query.level is not None:
            raise BadParameter("level", _("a numeric mean has no options to choose from"))
        return outcome, kind, None
    mechanism = outcome.mechanism
    if query.level is None:
        if not (mechanism.yes_no or mechanism.k == 2):
            raise BadParameter("level", _("choose the option of question %(order)s to model")
                               % {"order": outcome.order})
        return outcome, kind, 1
    if query.level >= mechanism.k:
        raise BadParameter("level", _("question %(order)s has options 0 to %(last)s")
                           % {"order": outcome.order, "last": mechanism.k - 1})
    return outcome, kind, query.level


def _outcome_kind(question: PlannedQuestion) -> str | None:
    mechanism = question.mechanism
    if not mechanism.randomized:
        return None
    if mechanism.estimates_mean:
        return LINEAR
    return LOGISTIC if mechanism.one_of_k else None


def _covariate_numeric(question: PlannedQuestion) -> bool | None:
    """True for a direct number, False for a direct choice, None for anything that cannot be a covariate."""
    mechanism = question.mechanism
    if mechanism.randomized:
        return None
    if mechanism.estimates_mean:
        return True
    return False if mechanism.one_of_k else None


def _covariates(questions: dict[int, PlannedQuestion], query: ModelQuery,
                outcome: PlannedQuestion) -> list[Covariate]:
    found = []
    for qid in query.covariates:
        question = questions.get(qid)
        if question is None:
            raise BadParameter("covariates", _("%(id)s is not a question of this survey") % {"id": qid})
        if question.id == outcome.id:
            raise BadParameter("covariates", _("the outcome cannot be its own covariate"))
        numeric = _covariate_numeric(question)
        if numeric is None:
            raise BadParameter("covariates", _("question %(order)s is randomized: only questions asked directly "
                                               "(sent as given) can be covariates") % {"order": question.order})
        reference = query.references.get(qid, 0)
        if numeric and qid in query.references:
            raise BadParameter("reference", _("question %(order)s is a number: it has no reference option")
                               % {"order": question.order})
        if not numeric and reference >= question.mechanism.k:
            raise BadParameter("reference", _("question %(order)s has options 0 to %(last)s")
                               % {"order": question.order, "last": question.mechanism.k - 1})
        if qid in query.squares and not numeric:
            raise BadParameter("square", _("question %(order)s is a choice: only numbers can enter squared")
                               % {"order": question.order})
        found.append(Covariate(question, numeric, reference, qid in query.squares))
    stray = (set(query.references) | set(query.squares)) - set(query.covariates)
    if stray:
        name = "reference" if stray & set(query.references) else "square"
        raise BadParameter(name, _("question id %(id)s is not among the covariates") % {"id": min(stray)})
    return found


def _stored(question_id: int) -> dict[Any, int]:
    return dict(Report.objects.filter(question_id=question_id).order_by().values_list("response_id", "value"))


def _decoded(question: PlannedQuestion, stored: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The reports as sent, from the stored values of an index-coded question."""
    decode = question.mechanism.decode
    return np.fromiter((decode(int(v)) for v in stored), dtype=np.int64, count=stored.size)


def _binary(outcome: PlannedQuestion, stored: npt.NDArray[np.int64], level: int | None) -> npt.NDArray[np.float64]:
    """Whether each report is option `level`: its bit for a unary encoding, else the index compared."""
    if outcome.mechanism.unary:
        return ((stored >> int(level or 0)) & 1).astype(float)
    return (_decoded(outcome, stored) == level).astype(float)


def _design_matrix(covariates: list[Covariate], stored: dict[int, npt.NDArray[np.int64]],
                   n: int) -> tuple[npt.NDArray[np.float64], list[Term]]:
    columns, terms = [np.ones(n)], [Term(INTERCEPT, _("Intercept"))]
    for c in covariates:
        q = c.question
        reports = _decoded(q, stored[q.id])
        if c.numeric:
            levels, where = np.unique(reports, return_inverse=True)
            values = np.array([float(q.mechanism.value(int(i))) for i in levels])[where]  # type: ignore[attr-defined]
            columns.append(values)
            terms.append(Term(q.key, f"{q.order}. {q.text}"))
            if c.squared:
                columns.append(values**2)
                terms.append(Term(f"{q.key}^2", _("%(question)s, squared") % {"question": f"{q.order}. {q.text}"}))
            continue
        chosen = np.bincount(reports, minlength=q.mechanism.k)
        for j, label in enumerate(q.options):
            if chosen[j] == 0:
                raise NotModelled("covariates", _(
                    "Nobody among the %(n)s responses used chose “%(option)s” of question %(order)s: its effect "
                    "cannot be estimated. Leave the question out until somebody has.")
                    % {"n": n, "option": label, "order": q.order})
            if j != c.reference:
                columns.append((reports == j).astype(float))
                terms.append(Term(f"{q.key}={j}", _("%(question)s: %(option)s (against %(reference)s)") % {
                    "question": f"{q.order}. {q.text}", "option": label, "reference": q.options[c.reference]}))
    return np.column_stack(columns), terms


def _collinear() -> NotModelled:
    return NotModelled("covariates", _("The covariates are collinear or constant among the responses used (one "
                                       "is determined by the others): leave one out."))


def _separated() -> NotModelled:
    return NotModelled("outcome", _(
        "The data separate: the likelihood keeps rising as some coefficients grow without bound (in some group "
        "the reports are all or almost all one way beyond what the randomization allows). Merge or leave out the "
        "covariates with few respondents."))


def _logistic(y: npt.NDArray[np.float64], x: npt.NDArray[np.float64], design: Any, query: ModelQuery,
              common: dict[str, Any]) -> FittedModel:
    mechanism = common["outcome"].mechanism
    p, q = mechanism.p, mechanism.q_other
    try:
        found = logistic.fit(y, x, p, q, terms=[t.key for t in common["terms"]], design=design, se=query.se,
                             confidence=query.confidence)
    except np.linalg.LinAlgError:  # a singular information at a maximum at infinity (ldp inverts it)
        raise _separated() from None
    except ValueError:
        raise _collinear() from None
    if np.abs(x @ np.asarray(found.estimate)).max() > logistic.DIVERGED:
        raise _separated()
    if not found.converged:
        raise NotModelled("outcome", _(
            "The fit did not converge to a maximum with standard errors; the estimates would not mean anything. "
            "Try fewer covariates."))
    baseline = float(np.clip((y.mean() - q) / (p - q), 0.01, 0.99))
    power = Power(query.odds_ratio, baseline, EXPOSED, 1.0 - query.confidence, POWER, respondents_for_odds_ratio(
        query.odds_ratio, p, q, baseline=baseline, exposed=EXPOSED, alpha=1.0 - query.confidence, power=POWER))
    return FittedModel(
        **common, kind=LOGISTIC, estimate=found.estimate, std_error=found.std_error, ci_low=found.ci_low,
        ci_high=found.ci_high, odds_ratio=found.odds_ratio, odds_ratio_low=found.odds_ratio_low,
        odds_ratio_high=found.odds_ratio_high, log_likelihood=found.log_likelihood,
        null_log_likelihood=found.null_log_likelihood, test=found.test, statistic=found.statistic, df=found.df,
        p_value=found.p_value, se=found.se, confidence=found.confidence, power=power)


def _linear(values: npt.NDArray[np.float64], x: npt.NDArray[np.float64], design: Any, query: ModelQuery,
            common: dict[str, Any]) -> FittedModel:
    try:
        found = linear_model.fit(values, x, terms=[t.key for t in common["terms"]], design=design,
                                 confidence=query.confidence)
    except ValueError:
        raise _collinear() from None
    return FittedModel(
        **common, kind=LINEAR, estimate=found.estimate, std_error=found.std_error, ci_low=found.ci_low,
        ci_high=found.ci_high, odds_ratio=None, odds_ratio_low=None, odds_ratio_high=None, log_likelihood=None,
        null_log_likelihood=None, test=None, statistic=None, df=None, p_value=None, se=found.se,
        confidence=found.confidence, power=None)

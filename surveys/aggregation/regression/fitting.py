"""Models of a survey's answers: a randomized question explained by the questions asked directly, fitted with
`ldp` from the reports already stored (no extra privacy cost).

- A randomized yes/no question, or one option (`level`) of a randomized k-option question, is modelled by
  logistic regression through its mechanism's exact binary channel, P(report = 1 | x) = q + (p - q) s(x'b)
  (`ldp.regression.logistic`): odds ratios, the likelihood-ratio test against the intercept-only model (a Wald test when
  weighted), standard errors from the observed information (default) or the outer product of scores, and each
  term's Wald test (z = estimate / SE, p = 2 Phi(-|z|)).
- A randomized numeric mean (1-bit mean, discrete Laplace) by least squares of its unbiased per-report values,
  with robust (HC1) standard errors and each term's t test (`ldp.regression.linear`).
- Covariates are direct questions (sent as given, so a respondent's category is known): a single choice as
  indicators against a reference option (its first unless chosen), a direct number as a number, optionally
  with its square. What a question is, is asked of its mechanism (`randomized`, `one_of_k`, `estimates_mean`).

The rows are the responses with a report for every question used (the others are counted in `dropped`),
read grouped by their stored values (`model_rows`): each distinct combination once, with its count, which the
fits and the raking take as such (exact: their sums are over responses). Weighted, the rows are also those
with an answer to every margin question, raked to the survey's population margins (`weighting.raked`), and
the fit takes the sandwich variance through the raking. No model on too few respondents: the early-results rule
of the outcome's own estimates (`too_few`). A fit that does not converge, or whose data separate, is refused
with the reason, as are covariates that are collinear or an option nobody in the rows chose.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.utils.translation import gettext as _

from ldp.regression import linear as linear_model
from ldp.regression import logistic, logistic_maximum
from ldp.regression.logistic_power import respondents_for_odds_ratio
from surveys.collection import plan
from surveys.collection.models import Response, Survey
from surveys.collection.plan import PlannedQuestion

from ..params import ResultOptions
from ..results import service as results
from ..results import too_few, versions
from ..results.snapshot import snapshot
from ..weighting import weights as weighting
from . import formulas as model_formulas
from . import questions as model_questions
from . import rows as model_rows
from .params import ModelQuery
from .questions import LINEAR, LOGISTIC, NotModelled, Term

POWER = 0.8  # the power calculation's target
EXPOSED = 0.5  # ... for a binary covariate held by this share of respondents


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
    z: tuple[float, ...]  # estimate / std_error; linear: Student's t
    p_values: tuple[float, ...]  # each term's two-sided test (normal; linear: t with n - k df)
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
    def warning(self) -> str | None:
        """The one rule's warning for a model fitted below its respondents (as a pilot figure), else None."""
        return too_few_words(self.n, self.needed, self.outcome) if too_few.too_few(self.n, self.needed) else None

    @property
    def alpha(self) -> float:
        """The level of the section's test in words: that of its intervals, 1 - confidence."""
        return 1.0 - self.confidence

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
                   "z": self.z[i], "p_value": self.p_values[i], "odds_ratio": None,
                   "odds_ratio_low": None, "odds_ratio_high": None}
            if self.odds_ratio is not None and self.odds_ratio_low is not None and self.odds_ratio_high is not None:
                row.update(odds_ratio=self.odds_ratio[i], odds_ratio_low=self.odds_ratio_low[i],
                           odds_ratio_high=self.odds_ratio_high[i])
            found.append(row)
        return found


def fit(survey: Survey, query: ModelQuery, pilot: bool = False) -> FittedModel:
    """The model `query` asks for, fitted on the survey's stored reports; a refusal saying why not. Below the one
    rule's respondents (`too_few`) it is refused, or with `pilot` (the dashboard's pilot figures) fitted and marked."""
    current = plan.of(survey)
    versions.check(survey, current)
    questions = {q.id: q for q in current}
    if query.formula:  # its outcome and terms (model_formulas), else the form's
        parsed, outcome, kind, level, direct = model_formulas.resolve(questions, query)
        covariates: list[model_questions.Covariate] = []
    else:
        outcome, kind, level = model_questions.outcome(questions, query)
        covariates, parsed = model_questions.covariates(questions, query, outcome), None
        direct = [c.question for c in covariates]
    used = [outcome.id, *(q.id for q in direct)]
    margins = weighting.required_margins(survey) if query.weighted else []
    with snapshot():  # the rows and the counts of the same responses, whatever arrives meanwhile
        rows = model_rows.grouped(used + [m.question_id for m in margins if m.question_id not in used])
        total = Response.objects.filter(survey=survey).count()
        answering = model_rows.answering_any([m.question_id for m in margins]) if margins else 0
    found = None if not query.weighted else _weights(margins, questions, rows, answering)
    n = rows.n
    options = ResultOptions(confidence=query.confidence, margin=query.margin).resolved(
        survey.status == Survey.Status.OPEN)
    needed = results.needed(outcome, options)
    if too_few.too_few(n, needed) and not pilot:
        raise NotModelled("outcome", too_few_words(n, needed, outcome))
    stored = {q: rows.column(q) for q in used}
    x, terms = (model_questions.design_matrix(covariates, stored, n) if parsed is None
                else model_formulas.design_matrix(parsed, direct, stored, n))
    design = None if found is None else found.design
    common = {"query": query, "outcome": outcome, "level": level, "terms": tuple(terms), "n": n,
              "dropped": total - n, "needed": needed, "weights": found,
              "references": tuple((c.question, c.question.options[c.reference]) for c in covariates if not c.numeric)}
    counts = rows.counts.astype(float)
    if kind == LINEAR:
        values = linear_model.per_report_values(outcome.mechanism, model_questions.decoded(outcome, stored[outcome.id]))
        return _linear(values, x, design, counts, query, common)
    y = _binary(outcome, stored[outcome.id], level)
    return _logistic(y, x, design, counts, query, common)


def too_few_words(n: int, needed: int, outcome: PlannedQuestion) -> str:
    """The one rule's words for a model (its refusal, or a pilot model's warning)."""
    return _("Too few respondents for a model: %(n)s responses answer every question used, of the %(needed)s "
             "needed before the estimates of question %(order)s are shown. The randomization would dominate.") % {
        "n": n, "needed": needed, "order": outcome.order}


def _weights(margins: list[Any], questions: dict[int, PlannedQuestion], rows: model_rows.Rows,
             answering: int) -> weighting.Weights:
    """The rows raked to the margins (every row answers each margin question); left out: the `answering`
    responses (those that answer some margin question) not among the rows."""
    design, used = weighting.raked(margins, questions, {m.question_id: rows.column(m.question_id) for m in margins},
                                   counts=rows.counts)
    return weighting.Weights(design, used, answering - rows.n)


def _binary(outcome: PlannedQuestion, stored: npt.NDArray[np.int64], level: int | None) -> npt.NDArray[np.float64]:
    """Whether each report is option `level`: its bit for a unary encoding, else the index compared."""
    if outcome.mechanism.unary:
        return ((stored >> int(level or 0)) & 1).astype(float)
    return (model_questions.decoded(outcome, stored) == level).astype(float)


def _collinear(query: ModelQuery) -> NotModelled:
    return NotModelled("formula" if query.formula else "covariates", _(
        "The covariates are collinear or constant among the responses used (one is determined by the others): "
        "leave one out."))


def _separated() -> NotModelled:
    return NotModelled("outcome", _(
        "The data separate: the likelihood keeps rising as some coefficients grow without bound (in some group "
        "the reports are all or almost all one way beyond what the randomization allows). Merge or leave out the "
        "covariates with few respondents."))


def _logistic(y: npt.NDArray[np.float64], x: npt.NDArray[np.float64], design: Any,
              counts: npt.NDArray[np.float64], query: ModelQuery, common: dict[str, Any]) -> FittedModel:
    mechanism = common["outcome"].mechanism
    p, q = mechanism.p, mechanism.q_other
    try:
        found = logistic.fit(y, x, p, q, terms=[t.key for t in common["terms"]], design=design, se=query.se,
                             confidence=query.confidence, counts=counts)
    except ValueError:
        raise _collinear(query) from None
    if np.abs(x @ np.asarray(found.estimate)).max() > logistic_maximum.DIVERGED:
        raise _separated()
    if not found.converged:
        raise NotModelled("outcome", _(
            "The fit did not converge to a maximum with standard errors; the estimates would not mean anything. "
            "Try fewer covariates."))
    # Weighted: the population's prevalence, and as many more respondents as the weights' design effect costs.
    rate = float(np.average(y, weights=counts if design is None else design.mass))
    baseline = float(np.clip((rate - q) / (p - q), 0.01, 0.99))
    needed = respondents_for_odds_ratio(query.odds_ratio, p, q, baseline=baseline, exposed=EXPOSED,
                                        alpha=1.0 - query.confidence, power=POWER)
    if design is not None:
        needed = math.ceil(needed * design.design_effect)
    power = Power(query.odds_ratio, baseline, EXPOSED, 1.0 - query.confidence, POWER, needed)
    return FittedModel(
        **common, kind=LOGISTIC, estimate=found.estimate, std_error=found.std_error, ci_low=found.ci_low,
        ci_high=found.ci_high, z=found.z, p_values=found.p_values, odds_ratio=found.odds_ratio,
        odds_ratio_low=found.odds_ratio_low,
        odds_ratio_high=found.odds_ratio_high, log_likelihood=found.log_likelihood,
        null_log_likelihood=found.null_log_likelihood, test=found.test, statistic=found.statistic, df=found.df,
        p_value=found.p_value, se=found.se, confidence=found.confidence, power=power)


def _linear(values: npt.NDArray[np.float64], x: npt.NDArray[np.float64], design: Any,
            counts: npt.NDArray[np.float64], query: ModelQuery, common: dict[str, Any]) -> FittedModel:
    try:
        found = linear_model.fit(values, x, terms=[t.key for t in common["terms"]], design=design,
                                 confidence=query.confidence, counts=counts)
    except ValueError:
        raise _collinear(query) from None
    return FittedModel(
        **common, kind=LINEAR, estimate=found.estimate, std_error=found.std_error, ci_low=found.ci_low,
        ci_high=found.ci_high, z=found.z, p_values=found.p_values, odds_ratio=None, odds_ratio_low=None,
        odds_ratio_high=None, log_likelihood=None,
        null_log_likelihood=None, test=None, statistic=None, df=None, p_value=None, se=found.se,
        confidence=found.confidence, power=None)

"""Which questions a model takes and how they enter it (surveys.aggregation.regression.fitting fits it): the outcome, a
randomized question (one answer of k options, or a numeric mean), and the covariates, questions asked directly
(a choice as indicators against a reference option, a number as a number, optionally squared), each checked
against what its mechanism declares (`randomized`, `one_of_k`, `estimates_mean`), never its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

import numpy as np
import numpy.typing as npt
from django.utils.translation import gettext as _

from ldp import Shape
from surveys import refusals
from surveys.collection import plan
from surveys.collection.plan import PlannedQuestion

from ..params import BadParameter
from .params import ModelQuery

LOGISTIC, LINEAR = "logistic", "linear"
INTERCEPT = "(Intercept)"


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
class Covariate:
    question: PlannedQuestion
    numeric: bool
    reference: int  # single choice: the reference option
    squared: bool


def choices(current: plan.SurveyPlan) -> dict[str, list[PlannedQuestion]]:
    """What the Models form offers: outcomes (randomized, one answer of k options or a mean) and covariates
    (direct single choices and numbers)."""
    return {"outcomes": [q for q in current if outcome_kind(q) is not None],
            "covariates": [q for q in current if covariate_numeric(q) is not None]}


def outcome(questions: dict[int, PlannedQuestion], query: ModelQuery) -> tuple[PlannedQuestion, str, int | None]:
    outcome = questions.get(query.outcome)
    if outcome is None:
        raise BadParameter("outcome", _("not a question of this survey"))
    kind = outcome_kind(outcome)
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


def outcome_kind(question: PlannedQuestion) -> str | None:
    match question.mechanism.shape:
        case Shape.MEAN_BIT | Shape.LAPLACE:
            return LINEAR
        case Shape.INDEX | Shape.BITS:
            return LOGISTIC
        case Shape.DIRECT | Shape.NUMBER | Shape.TICKS:
            return None
        case _:
            assert_never(question.mechanism.shape)


def covariate_numeric(question: PlannedQuestion) -> bool | None:
    """True for a direct number, False for a direct choice, None for anything that cannot be a covariate."""
    match question.mechanism.shape:
        case Shape.NUMBER:
            return True
        case Shape.DIRECT:
            return False
        case Shape.INDEX | Shape.BITS | Shape.TICKS | Shape.MEAN_BIT | Shape.LAPLACE:
            return None
        case _:
            assert_never(question.mechanism.shape)


def covariates(questions: dict[int, PlannedQuestion], query: ModelQuery,
                outcome: PlannedQuestion) -> list[Covariate]:
    found = []
    for qid in query.covariates:
        question = questions.get(qid)
        if question is None:
            raise BadParameter("covariates", _("%(id)s is not a question of this survey") % {"id": qid})
        if question.id == outcome.id:
            raise BadParameter("covariates", _("the outcome cannot be its own covariate"))
        numeric = covariate_numeric(question)
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


def decoded(question: PlannedQuestion, stored: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The reports as sent, from the stored values of an index-coded question (each distinct value decoded, and
    so checked, once)."""
    levels, where = np.unique(stored, return_inverse=True)
    decode = question.mechanism.decode
    return np.array([decode(int(v)) for v in levels], dtype=np.int64)[where].reshape(stored.shape)


def numeric_values(question: PlannedQuestion, reports: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """A numeric covariate's values (its grid's numbers) for its decoded reports."""
    levels, where = np.unique(reports, return_inverse=True)
    return np.array([float(question.mechanism.value(int(i))) for i in levels])[where]  # type: ignore[attr-defined]


def every_option_chosen(question: PlannedQuestion, reports: npt.NDArray[np.int64], n: int, field: str) -> None:
    """A refusal naming `field` when an option of a categorical covariate was chosen by nobody among the rows."""
    chosen = np.bincount(reports, minlength=question.mechanism.k)
    for j, label in enumerate(question.options):
        if chosen[j] == 0:
            raise NotModelled(field, _(
                "Nobody among the %(n)s responses used chose “%(option)s” of question %(order)s: its effect "
                "cannot be estimated. Leave the question out until somebody has.")
                % {"n": n, "option": label, "order": question.order})


def design_matrix(covariates: list[Covariate], stored: dict[int, npt.NDArray[np.int64]],
                   n: int) -> tuple[npt.NDArray[np.float64], list[Term]]:
    """The columns of the covariates' terms for the rows of `stored` (grouped rows: one per distinct combination
    of answers), an intercept first; `n`: the responses they stand for."""
    rows = len(next(iter(stored.values())))
    columns, terms = [np.ones(rows)], [Term(INTERCEPT, _("Intercept"))]
    for c in covariates:
        q = c.question
        reports = decoded(q, stored[q.id])
        if c.numeric:
            values = numeric_values(q, reports)
            columns.append(values)
            terms.append(Term(q.key, f"{q.order}. {q.text}"))
            if c.squared:
                columns.append(values**2)
                terms.append(Term(f"{q.key}^2", _("%(question)s, squared") % {"question": f"{q.order}. {q.text}"}))
            continue
        every_option_chosen(q, reports, n, "covariates")
        for j, label in enumerate(q.options):
            if j != c.reference:
                columns.append((reports == j).astype(float))
                terms.append(Term(f"{q.key}={j}", _("%(question)s: %(option)s (against %(reference)s)") % {
                    "question": f"{q.order}. {q.text}", "option": label, "reference": q.options[c.reference]}))
    return np.column_stack(columns), terms

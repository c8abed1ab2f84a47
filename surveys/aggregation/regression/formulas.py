"""A model written as a formula (`formula=q1 ~ q3 + q4 + I(q4^2) + q3:q4`): R's syntax over the questions' keys, as
the exports name their columns (ldp.regression.formula reads it, formulaic encodes its terms). The outcome on the left
is a
randomized question, as for the Models form; the names on the right are questions asked directly: a single choice
is a category of its option indexes (0, 1, ...; the first the reference, or C(q2, Treatment(2))), a direct number
its value. Every refusal names `formula` (a 400); what the stored reports cannot give is a 409 as for the form.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt
from django.utils.translation import gettext as _

from ldp.regression import formula
from surveys.collection.plan import PlannedQuestion

from ..params import BadParameter
from .params import ModelQuery
from .questions import INTERCEPT, Term, covariate_numeric, decoded, every_option_chosen, numeric_values, outcome


def resolve(questions: dict[int, PlannedQuestion], query: ModelQuery
            ) -> tuple[formula.Parsed, PlannedQuestion, str, int | None, list[PlannedQuestion]]:
    """The formula read, its outcome (with its kind and level, checked as the form's) and its covariates."""
    try:
        parsed = formula.parse(query.formula)
    except formula.FormulaError as error:
        raise BadParameter("formula", str(error)) from None
    keys = {q.key: q for q in questions.values()}
    unknown = [name for name in (parsed.outcome, *parsed.variables) if name not in keys]
    if unknown:
        raise BadParameter("formula", _("%(name)s is not a question of this survey (write its key, such as q1)")
                           % {"name": unknown[0]})
    try:
        found, kind, level = outcome(questions, replace(query, outcome=keys[parsed.outcome].id))
    except BadParameter as error:
        if error.field != "outcome":
            raise
        raise BadParameter("formula", error.reason) from None
    covariates = [keys[name] for name in parsed.variables]
    for question in covariates:
        if covariate_numeric(question) is None:
            raise BadParameter("formula", _("question %(order)s is randomized (or a multi-select): only questions "
                                            "asked directly can be covariates") % {"order": question.order})
    return parsed, found, kind, level, covariates


def design_matrix(parsed: formula.Parsed, covariates: list[PlannedQuestion], stored: dict[int, npt.NDArray[np.int64]],
                  n: int) -> tuple[npt.NDArray[np.float64], list[Term]]:
    """The formula's columns for the grouped rows of `stored`, the intercept first, each term named as formulaic
    names it."""
    data: dict[str, formula.Column] = {}
    for q in covariates:
        reports = decoded(q, stored[q.id])
        if covariate_numeric(q):
            data[q.key] = numeric_values(q, reports)
            continue
        every_option_chosen(q, reports, n, "formula")
        data[q.key] = formula.Categorical(reports.astype(np.int64), tuple(range(q.mechanism.k)))
    if not data:  # an intercept alone: formulaic still wants the rows
        data["_rows_"] = np.zeros(len(next(iter(stored.values()))))
    try:
        x, names = formula.design(parsed, data)
    except formula.FormulaError as error:
        raise BadParameter("formula", str(error)) from None
    return x, [Term(name, _("Intercept") if name == INTERCEPT else name) for name in names]

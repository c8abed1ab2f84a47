"""The researcher's models on a page: the dashboard's Models section (its form and its fit) and the rows of the
model's CSV. The numbers come from surveys.aggregation.regression.fitting; the views are in
surveys.aggregation.views.dashboard
(the dashboard, the CSV) and surveys.aggregation.api.figures."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from surveys import errors, refusals
from surveys.collection.models import Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from .. import params
from ..charts import coefficients as model_charts
from ..exports.figure_tables import cell
from ..regression import fitting as modelling
from ..regression import params as model_params
from ..regression import questions as model_questions

COLUMNS = ("term", "label", "estimate", "std_error", "ci_low", "ci_high", "z", "p_value", "odds_ratio",
           "odds_ratio_low", "odds_ratio_high")
# The CSV's names of the columns: a term's p-value beside the model test's own p_value
HEADERS = tuple("term_p_value" if c == "p_value" else c for c in COLUMNS)
# The page names a refused parameter by its label on the form, never by its name in the query ("reference").
FIELD_LABELS = {
    "outcome": gettext_lazy("Outcome"), "formula": gettext_lazy("Formula"),
    "level": gettext_lazy("Option modelled (questions with more than two options)"),
    "covariates": gettext_lazy("Covariates (questions asked directly)"), "reference": gettext_lazy("Reference option"),
    "square": gettext_lazy("also squared"), "se": gettext_lazy("Standard errors (unweighted logistic models)"),
    "weighted": gettext_lazy("Weighted to the population margins (also the estimates above)"),
    "odds_ratio": gettext_lazy("Odds ratio for the power calculation"),
}
MODEL_COLUMNS = ("model", "outcome_id", "outcome_key", "level", "level_label", "n", "dropped", "se", "confidence",
                 "weighted", "log_likelihood", "test", "statistic", "df", "p_value")


def section(survey: Survey, query: Any, current: SurveyPlan) -> dict[str, Any]:
    """What the dashboard's Models section shows: the form's choices and, when asked, the model or why not
    (`model_problem`, with its status: `model_status`)."""
    choices = model_questions.choices(current)
    found: dict[str, Any] = {"model_choices": choices, "model": None, "model_problem": None, "model_status": 200,
                             "forest_chart": None, "model_asked": None,
                             "model_covariates": _covariates(choices["covariates"], None)}
    if not model_params.asked(query):
        return found
    try:
        asked = model_params.parse(query, strict=False)
        found.update(model_asked=asked, model_covariates=_covariates(choices["covariates"], asked))
        model = modelling.fit(survey, asked, pilot=params.pilot_asked(query))
        found.update(model=model, forest_chart=model_charts.forest_chart(model), model_query=asked.query())
    except refusals.Refusal as error:
        found.update(model_problem={"field": FIELD_LABELS.get(error.field, error.field), "reason": error.reason},
                     model_status=errors.status_of(error))
    return found


def _covariates(questions: list[PlannedQuestion], asked: model_params.ModelQuery | None) -> list[dict[str, Any]]:
    """The form's covariates as asked for (checked, reference option, squared)."""
    return [{"question": q, "numeric": bool(model_questions.covariate_numeric(q)),
             "checked": asked is not None and q.id in asked.covariates,
             "reference": 0 if asked is None else asked.references.get(q.id, 0),
             "squared": asked is not None and q.id in asked.squares} for q in questions]


def rows(found: modelling.FittedModel) -> list[list[Any]]:
    """The coefficient table, each row with the model's own figures beside it (one table, whole); a number that
    is not finite (an odds ratio's end past a float's range) is an empty cell, as in the other CSVs."""
    outcome = [found.outcome.id, found.outcome.key, "" if found.level is None else found.level,
               found.level_label or ""]
    test = [found.test or "", cell(found.statistic), found.df, cell(found.p_value)]
    model = [found.kind, *outcome, found.n, found.dropped, found.se, found.confidence,
             str(found.weights is not None).lower(), cell(found.log_likelihood), *test]
    return [[*HEADERS, *MODEL_COLUMNS],
            *([*(row[c] if c in ("term", "label") else cell(row[c]) for c in COLUMNS), *model]
              for row in found.rows())]

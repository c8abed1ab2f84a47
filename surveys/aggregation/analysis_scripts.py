"""Scripts generated per survey, to take its randomized reports into R or Python.

Under /results/<slug>/export/:

- reports.R: reads reports.csv into the data frame `reports`, each column with its variable
  label, value labels and (attribute "ldp") the mechanism and exact channel.
- analysis.R: the same reader, then debiases every question and prints the dashboard's
  estimates with its intervals (Wilson with continuity correction by default, Clopper-Pearson
  with --interval exact; --confidence, --simultaneous, --csv FILE for every number at full
  precision). Base R only; the codebook travels inside it as R data (base R reads no JSON);
  comments show how to hand the design to RRreg for regression.
- analysis.py: the same in Python (numpy and the standard library), reading reports.csv and
  codebook.json.

The templates are templates/aggregation/scripts/. Every survey text enters a script as a literal
from surveys.aggregation.script_literals, never as raw text. Nothing else about the responses is
in a script: it holds the survey's definition only.
"""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from surveys.collection.models import Survey
from surveys.collection.plan import SurveyPlan

from . import export_weights, exports, too_few
from .script_literals import python_string, r_design, r_string

SCRIPTS = {name: f"aggregation/scripts/{name}.template" for name in ("reports.R", "analysis.R", "analysis.py")}


def script(survey: Survey, current: SurveyPlan, name: str) -> str:
    """The text of the script `name` (a key of SCRIPTS) for this survey."""
    return render_to_string(SCRIPTS[name], _context(survey, current, name))


def _context(survey: Survey, current: SurveyPlan, name: str) -> dict[str, Any]:
    files = {key: exports.filename(survey, key) for key in ("reports.csv", "codebook.json", "analysis.R")}
    python = name.endswith(".py")
    literal = python_string if python else r_string
    context: dict[str, Any] = {
        "slug": survey.slug,
        "title": literal(survey.title),
        "generated": timezone.localdate().isoformat(),
        "script_name": exports.filename(survey, name),
        "reports_csv_name": files["reports.csv"],
        "codebook_name": files["codebook.json"],
        "analysis_name": files["analysis.R"],
        "reports_csv": literal(files["reports.csv"]),
        "codebook": literal(files["codebook.json"]),
        "version": literal(current.version),
    }
    if python:  # the numeric means' worst-case variances, for the rule for too few (R has them in its design)
        variances = {q.key: too_few.mean_variance(q) for q in current}
        context["mean_variance"] = "{" + ", ".join(f"{python_string(key)}: {value!r}" for key, value in
                                                   variances.items() if value is not None) + "}"
    else:
        context["design"] = r_design(current, survey.slug, survey.title, export_weights.described(survey, current))
    return context

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

Both also give the dashboard's intervals valid at any time (--interval anytime: the planning size and each
question's respondents needed at the dashboard's defaults travel in the script) and, for a survey with population
margins, its weighted figures (--weighted: analysis.py rakes by itself, analysis.R with R's survey package, the only
package a script asks for). And both fit the dashboard's models (--model, or fit_model in a session:
surveys.aggregation.regression.fitting's logistic and linear models, weighted or not, with each term's test, or a model
written as a formula: --formula, read by formulaic in Python and by R's model.matrix), each its own implementation
(Newton's method and raking in base R; numpy), printing the models API's table, and the dashboard's cross-tabs
(--crosstab A,B, weighted or not: from the per-respondent score products, weighted by their own raking in Python and
by the survey package's calibrated design in R), printing the cross-tab API's figures and writing crosstab.csv's
columns, and its test of relation (Pearson's chi-square; weighted, Rao and Scott's F, by survey::svychisq in R) in
the dashboard's words, its figures added to the CSV as the API names them. Both also redo the results across the
waves of a series (--waves: each wave's folder of downloads; the change between two waves as
surveys.aggregation.waves.series gives it, writing waves.csv's columns; --weighted: each wave raked to the margins of
its
own codebook, as weighted=on gives them).

analysis.py is put together as SQLite's amalgamation is: a header of the survey's literals
(templates/aggregation/scripts/python/header.py.template), then the modules of surveys.aggregation.scripts.python
concatenated (surveys.aggregation.scripts.amalgamation), which are checked and unit-tested as modules. analysis.R
is its parts by topic (templates/aggregation/scripts/r/), rendered and concatenated in the order of R_PARTS. Every
survey text enters a script as a literal from surveys.aggregation.scripts.literals, never as raw text. Nothing else
about the responses is in a script: it holds the survey's definition only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from surveys.collection.models import Survey
from surveys.collection.plan import SurveyPlan

from .. import params
from ..exports import reports as exports
from ..exports import weights as export_weights
from ..results import sequence_plan, too_few
from ..results import service as results
from . import amalgamation
from .literals import python_string, r_design, r_string

# analysis.R's parts by topic, in their order in the script.
R_PARTS = ("head", "debiasing", "anytime", "means", "weighting", "estimates", "crosstab", "relation", "models",
           "fitting", "waves", "waves_output", "main")
SCRIPTS = {"reports.R": ["aggregation/scripts/reports.R.template"],
           "analysis.R": [f"aggregation/scripts/r/{part}.R.template" for part in R_PARTS],
           "analysis.py": ["aggregation/scripts/python/header.py.template"]}


def script(survey: Survey, current: SurveyPlan, name: str, page: params.ResultOptions = params.DEFAULTS) -> str:
    """The text of the script `name` (a key of SCRIPTS) for this survey; its command line's defaults are the
    options of the page it is downloaded from (`page`, resolved as the dashboard resolves them)."""
    context = {**_context(survey, current, name),
               **_defaults(page.resolved(survey.status == Survey.Status.OPEN), name.endswith(".py"))}
    text = "".join(render_to_string(part, context) for part in SCRIPTS[name])
    return amalgamation.script(text) if name == "analysis.py" else text


def _defaults(page: params.ResultOptions, python: bool) -> dict[str, str]:
    """The command line's defaults: the dashboard's interval (valid however often you look while the survey is open
    and nothing else is asked for), confidence, margin, Bonferroni share and weights, so that running the script
    without options prints the intervals of the page it came from."""
    literal, truth = (python_string, repr) if python else (r_string, lambda value: str(value).upper())
    return {"default_interval": literal(str(page.interval)),
            "default_confidence": repr(page.confidence), "default_margin": repr(page.margin),
            "default_simultaneous": truth(page.simultaneous), "default_weighted": truth(page.weighted)}


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
        "skip_logic": skip_logic_lines(current, python),
        **_anytime(current, python),
    }
    if python:  # the numeric means' worst-case variances, for the rule for too few (R has them in its design)
        variances = {q.key: too_few.mean_variance(q) for q in current}
        context["mean_variance"] = "{" + ", ".join(f"{python_string(key)}: {value!r}" for key, value in
                                                   variances.items() if value is not None) + "}"
    else:
        context["design"] = r_design(current, survey.slug, survey.title, export_weights.described(survey, current))
    return context


def _anytime(current: SurveyPlan, python: bool) -> dict[str, Any]:
    """What intervals valid at any time (--interval anytime) need: the sequences' planned size and level (the
    survey's, fixed when it opened, at every confidence and margin; no level for a survey opened before plans were
    stored, whose sequences follow --confidence as its page's do) and, at the dashboard's defaults (confidence 0.95,
    margin 0.05), each question's respondents needed for a margin that holds at every look."""
    options = replace(params.DEFAULTS, interval=params.ANYTIME)
    sequences = sequence_plan.of_plan(current)
    level = repr(sequences.confidence) if sequences.stored else "None" if python else "NULL"
    return {"anytime_confidence": repr(options.confidence), "anytime_margin": repr(options.margin),
            "planned": sequences.size, "sequence_confidence": level,
            "anytime_needed": _named_integers({q.key: results.needed(q, options) for q in current}, python)}


def _named_integers(values: dict[str, int], python: bool) -> str:
    """A Python dict or an R named vector of integers, keyed by question key."""
    if python:
        return "{" + ", ".join(f"{python_string(key)}: {value}" for key, value in values.items()) + "}"
    return "c(" + ", ".join(f"{r_string(key)} = {value}" for key, value in values.items()) + ")"


def skip_logic_lines(current: SurveyPlan, python: bool) -> list[str]:
    """Each question asked only of some respondents, with its condition, as the script's comments say it (on one
    line; in the Python script's docstring, its backslashes and triple quotes escaped)."""
    found = [f"{q.key}: asked only if {' '.join(q.relevant.split())}" for q in current if q.relevant]
    return [line.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') for line in found] if python else found

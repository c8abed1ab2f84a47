"""Exports from which a statistician can redo the analysis without this app.

Under /results/<slug>/export/:

- estimates.csv and crosstab.csv: the dashboard's figures as tables (surveys.aggregation.exports.figure_tables).
- waves.csv, for a wave of a series: the results across its waves, each question's estimate per wave and the
  change between two waves, with the wave column and the waves' dates (surveys.aggregation.waves.tables).
- reports.csv: one row per response. Columns: response_id, submitted_on (a day),
  mechanism_version, then per question in order: an index question (q-RR, bit flip, k-RR)
  has one column `q<order>` with the reported option index (0-based, in the codebook's
  option order; for yes/no 0 = No, 1 = Yes); a unary question (SUE, OUE) has one column
  per option, `q<order>_<j>`, with the reported bit (0/1) for option j. A survey with population
  margins ends each row with `weight`, the response's raking weight (surveys.aggregation.exports.weights:
  the dashboard's weights; empty when the response is not weighted).
- reports.json: {"format": REPORTS_FORMAT, "codebook": <the codebook>, "responses":
  [{"id", "submitted_on", "mechanism_version", "reports": {"q1": 0, "q4": [0, 1, 0, 0]}}]},
  index reports as integers, unary reports as lists of k bits (bit j = option j); with margins each
  response also has "weight" (a number, or null).
- codebook.json: with population margins, "weights": the margins (question, options and shares, source),
  the weighting rule and the weighted variance (`export_weights.described`); every question's mechanism as
  `ldp.Mechanism.describe()` gives it: p and
  q_other (the channel: P(report j | truth j) and P(report j | truth i != j), per bit for unary
  encodings) as floats and as exact fractions of the browser's sampler integers, the configured
  and effective epsilon, the sampler and its rule; the options and the report encoding. A question of a
  wave that remembers randomization gives its composed channel (both layers, exact) and one wave's loss,
  the instantaneous layer's sampler, and the permanent layer's own description under "permanent".
  A wave of a series says which in "wave": its number, the series' title and stable link (/w/<slug>/), whether
  the series remembers randomization, and the wave's configured opens_at and closes_at (ISO 8601, UTC, or null);
  for the change between waves (analysis.py --waves), answered_an_earlier_wave (its responses whose browser said
  so) and "questions": per key its lineage (the same question in every wave) and whether it is compared.
  Debiasing: pi_hat_j = (c_j / n - q_other) / (p - q_other),
  Var = lambda_j (1 - lambda_j) / (n (p - q_other)^2).
  A direct question (not randomized, its answer sent as given) says "randomized": false, its
  mechanism name and sampler kind are both direct, p = 1, q_other = 0 (the estimate is the observed
  fraction, with an ordinary binomial interval) and its effective epsilon is null (infinite: it has
  no deniability); the survey's epsilon_total counts the randomized questions only. In
  estimates.csv its effective_epsilon cell is empty.
  Multi-select, numeric and ordinal questions (see the codebook's "debiasing" entries for each formula): a
  multi-select is one bit per option, like a unary encoding (reports.csv: q<order>_<j>; its fractions need not
  add up to 1); a numeric question has its "scale" (lo, hi, step), and asked for its mean either a 1-bit mean
  (report 0 or 1) or discrete Laplace (report an integer r, the grid index plus noise, in [-bound, steps +
  bound]), or for a histogram k-ary randomized response over its "bins" (each with its lower edge); an ordinal
  question has its levels' "scores". In estimates.csv a numeric mean is one row with option_index "mean" (its
  estimate, standard error and interval in the question's units; count = n), and an ordinal question adds a
  row "mean_score" after its levels.

The report exports stream: read in blocks of responses in the order the indexes give
(surveys.aggregation.exports.blocks), each block written out as one piece of text, so memory does
not grow with the number of reports.
"""

from __future__ import annotations

import csv
import functools
import itertools
import json
import math
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any, assert_never

from django.db.models import Q
from django.urls import reverse

import ldp
from ldp.mechanisms.remembered import layers_of
from ldp.sequences import fractions as sequences
from ldp.sequences import means as mean_sequences
from surveys.collection import integrity, plan
from surveys.collection.models import Question, Response, Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan
from surveys.collection.serializers import bins_of, scale_of, scores_of

from . import blocks as report_blocks
from . import direct_columns
from . import weights as export_weights
from .blocks import Lookup

CODEBOOK_FORMAT = "ldp-survey-codebook/2"
REPORTS_FORMAT = "ldp-survey-reports/2"
FIXED_COLUMNS = ["response_id", "submitted_on", "mechanism_version"]
def filename(survey: Survey, name: str) -> str:
    return f"{survey.slug}-{name}"


def columns(question: PlannedQuestion) -> list[str]:
    if question.mechanism.unary:
        return [f"{question.key}_{j}" for j in range(question.mechanism.k)]
    return [question.key]


def codebook(survey: Survey, current: SurveyPlan | None = None) -> dict[str, Any]:
    """Everything needed to read and debias the reports."""
    current = current or plan.of(survey)
    weights = export_weights.described(survey, current)
    return {
        "format": CODEBOOK_FORMAT,
        "survey": {"slug": survey.slug, "title": survey.title, "status": survey.status,
                   "mechanism_version": current.version, "epsilon_total": current.epsilon_total,
                   "epsilon_budget": survey.epsilon_budget},
        "client_code": integrity.published(),  # the respondent page's modules and their hashes, as served now
        "debiasing": {
            "counts": "c_j = number of reports of option j (index encoding), or number of reports "
                      "whose bit j is 1 (bits encoding); n = number of reports of the question",
            "estimate": "pi_hat_j = (c_j / n - q_other) / (p - q_other)  (unbiased)",
            "variance": "Var(pi_hat_j) = lambda_j (1 - lambda_j) / (n (p - q_other)^2), lambda_j = c_j / n",
            "interval": "an interval for lambda_j (Wilson with continuity correction, or Clopper-Pearson) "
                        "mapped through the same affine map and clipped to [0, 1]",
            "interval_anytime": ANYTIME_INTERVAL,
            **MECHANISM_FORMULAS,
            **OTHER_KINDS,
        },
        "reports_csv_columns": report_columns(current, weights is not None),
        "questions": [_question_entry(q) for q in current],
        **({"weights": weights} if weights is not None else {}),
        **({"wave": wave} if (wave := wave_of(survey, current)) is not None else {}),
    }


def wave_of(survey: Survey, current: SurveyPlan | None = None) -> dict[str, Any] | None:
    """Which wave of which series these reports belong to (None for a survey in no series): its number, the
    series' title and stable link, whether this wave's reports were made with remembered randomization (a wave made
    before its series, or with no permanent layer, was not, whatever the series does now), and the wave's dates as
    configured.
    With its plan (the codebook), what the change between waves needs: the responses that said they answered an
    earlier wave, and per question key its lineage (the same question in every wave) and whether it is compared
    across waves (one answer of k)."""
    if survey.series is None or survey.wave is None:
        return None
    found = {"number": survey.wave, "series": survey.series.title,
             "series_link": reverse("collection:current-wave", args=[survey.series.slug]),
             "remembered": survey.remembers() and survey.questions.filter(
                 Q(permanent_q__isnull=False) | Q(permanent_epsilon__isnull=False)).exists(),
             "opens_at": None if survey.opens_at is None else survey.opens_at.isoformat(),
             "closes_at": None if survey.closes_at is None else survey.closes_at.isoformat()}
    if current is not None:
        lineages = dict(Question.objects.filter(survey=survey).values_list("pk", "lineage"))
        found["answered_an_earlier_wave"] = Response.objects.filter(survey=survey, earlier_wave=True).count()
        found["questions"] = {q.key: {"lineage": str(lineages[q.id]), "compared": q.mechanism.one_of_k,
                                      "remembered": layers_of(q.mechanism) is not None} for q in current}
    return found


def report_columns(current: SurveyPlan, weighted: bool) -> list[str]:
    """reports.csv's columns: the fixed ones, each question's, and the weight if the survey has margins."""
    return FIXED_COLUMNS + [c for q in current for c in columns(q)] + ([export_weights.NAME] if weighted else [])


# estimates.csv's interval column "anytime" (the default while a survey is open): a confidence sequence.
ANYTIME_INTERVAL = (
    "valid however often the results are looked at: P(the truth is in the interval at every n) >= the sequences' "
    "level, 1 - alpha (estimates.csv's sequence_confidence: the survey's planned confidence, fixed when it opened). "
    "For lambda_j, C_n = {lambda0 : M_n(lambda0) < 1 / alpha} with M_n the likelihood ratio of the "
    f"{sequences.CONSTRUCTION}: B(s lambda0 + c_j, s (1 - lambda0) + n - c_j) / B(s lambda0, s (1 - lambda0)) / "
    "(lambda0^c_j (1 - lambda0)^(n - c_j)); its prior strength s from the planning size t0 (estimates.csv's "
    "planned): s + 1 = t0 / c, c = -2 ln(alpha) + ln(1 - 2 ln(alpha)), at least 1. alpha / k per option for k > 2 "
    "options (all hold together), alpha for a yes/no question; mapped through the same affine map and clipped to "
    "[0, 1]. A 1-bit mean uses its bit's sequence mapped to units; a discrete Laplace mean the "
    f"{mean_sequences.LAPLACE_CONSTRUCTION}, sub-Gaussian in the grid index, clipped to [lo, hi]"
)

# The mechanisms whose reports need more than the common debiasing say how, each in its own words.
MECHANISM_FORMULAS = {name: cls.codebook_formula for name, cls in ldp.MECHANISMS.items() if cls.codebook_formula}

OTHER_KINDS = {  # the question kinds whose reading goes beyond their mechanism's
    "histogram": "a numeric question with bins: k-ary randomized response over the bins; a true value x is "
                 "reported as its bin, the last bin whose lower edge is at most x; debiased as above",
    "ordinal": "an ordinal question: per level as above; the mean score sum_j v_j pi_hat_j over the levels with a "
               "score v_j, with variance v^T Cov(pi_hat) v (plugged in at the simplex projection of pi_hat, times "
               "n / (n - 1)) and a Student t interval with n - 1 degrees of freedom; with a level without a score "
               "(\"Prefer not to say\") the mean among the scored levels, R = sum_S v_j pi_hat_j / sum_S pi_hat_j, "
               "its standard error by the delta method (that of sum_S (v_j - R) pi_hat_j, divided by sum_S pi_hat_j)",
}


def report_words(question: PlannedQuestion) -> str:
    """How a report travels in JSON, in words."""
    mechanism = question.mechanism
    match mechanism.shape:
        case ldp.Shape.BITS | ldp.Shape.TICKS:
            return f"a list of {mechanism.k} bits, bit j for option j"
        case ldp.Shape.NUMBER:
            d = mechanism.describe()
            return (f"the number as given (not randomized), from {d['lo']} to {d['hi']} by {d['step']}: the value "
                    f"lo + i * step of its grid index i from 0 to {mechanism.k - 1}, which the debiasing counts")
        case ldp.Shape.LAPLACE:
            d = mechanism.describe()
            return (f"an integer r from {-d['bound']} to {d['steps'] + d['bound']}: the grid index plus noise "
                    f"(the value lo + r * step; stored as r + {d['bound']})")
        case ldp.Shape.MEAN_BIT:
            return "the bit 0 or 1 (1 leans toward hi)"
        case ldp.Shape.INDEX | ldp.Shape.DIRECT:
            return f"an integer option index from 0 to {mechanism.k - 1}"
        case _:
            assert_never(mechanism.shape)


def _question_entry(question: PlannedQuestion) -> dict[str, Any]:
    mechanism = question.mechanism
    extra = {name: value for name, value in (("scale", scale_of(question)), ("bins", bins_of(question, every=True)),
                                             ("scores", scores_of(question))) if value is not None}
    return {
        "key": question.key,
        "id": question.id,
        "order": question.order,
        "text": question.text,
        "kind": question.kind,
        "options": list(question.options),
        "randomized": mechanism.randomized,
        "mechanism": described(mechanism),
        "report": {
            "encoding": mechanism.encoding,
            "csv_columns": columns(question),
            "json": report_words(question),
        },
        **extra,
        **({"band": direct_columns.band_entry(question)} if question.band else {}),
        # Skip logic: asked only when this held for the direct answers (absent when asked of everyone).
        **({"relevant": question.relevant} if question.relevant else {}),
    }


def described(mechanism: Any) -> dict[str, Any]:
    """`Mechanism.describe()` as JSON can carry it: a direct question's infinite epsilon is null."""
    found = {**mechanism.describe(), "randomized": mechanism.randomized}
    if not math.isfinite(found["effective_epsilon"]):
        found["effective_epsilon"] = None
    return found


def report_csv_lines(survey: Survey, current: SurveyPlan) -> Iterator[str]:
    """The header line, then the rows, a block of responses at a time (`report_blocks`); the weight last, if the
    survey has margins (`export_weights`)."""
    writer = csv.writer(_Echo())
    weights = export_weights.column(survey, current, list(current))
    yield writer.writerow(report_columns(current, weights is not None))
    # Each cell as csv.writer writes it in a row, with the comma before it: a report's cells from a
    # lookup per question, the day's and version's from one per distinct value.
    def cell(value: Any) -> str:
        return writer.writerow(["", value])[:-len(writer.dialect.lineterminator)]
    days, versions = Lookup(lambda day: cell(day.isoformat()), None), Lookup(cell, None)
    reports = [Lookup(functools.partial(_csv_cells, cell, q), "," * len(columns(q))) for q in current]
    for block in report_blocks.blocks(survey, list(current)):
        cells = [list(map(lookup.__getitem__, column)) for lookup, column in zip(reports, block.values, strict=True)]
        if weights is not None:
            cells.append(list(map(cell, weights.of(block))))
        yield "".join(itertools.chain.from_iterable(zip(
            block.ids, map(days.__getitem__, block.days), map(versions.__getitem__, block.versions), *cells,
            itertools.repeat(writer.dialect.lineterminator, len(block)), strict=True)))
    if weights is not None:
        weights.check_used()


def _csv_cells(cell: Callable[[Any], str], question: PlannedQuestion, value: int | str) -> str:
    return "".join(map(cell, cells(question, value)))


def cells(question: PlannedQuestion, value: int | str) -> list[Any]:
    """A stored value (or its decimal text) as the report's cells: the reported index (or integer), each option's
    bit, or a number sent as given as its value (35, not its grid index 17: the file is read as it is)."""
    if question.given_number:
        return [given_value(question, value)]
    decoded = question.mechanism.decode(int(value))
    return decoded if isinstance(decoded, list) else [decoded]


def given_value(question: PlannedQuestion, stored: int | str) -> Decimal:
    """A number sent as given: its stored grid index as its value on the grid, exact and in its shortest plain
    digits (35, not 35.000000 or 3.5E+1)."""
    if question.band:  # an export with the numbers in bands: its band's lower end
        return direct_columns.band_value(question, question.mechanism.decode(int(stored)))  # type: ignore[arg-type]
    found = question.mechanism.value(question.mechanism.decode(int(stored)))  # type: ignore[attr-defined]  # a grid
    return Decimal(f"{found.normalize():f}")


def _json_report(question: PlannedQuestion, value: int | str) -> str:
    if question.given_number:  # its value as a JSON number, written exactly as the decimal it is
        return f"{json.dumps(question.key)}: {given_value(question, value)}"
    return f"{json.dumps(question.key)}: {json.dumps(question.mechanism.decode(int(value)))}"


def report_json_chunks(survey: Survey, current: SurveyPlan) -> Iterator[str]:
    """The JSON export, written a block of responses at a time (the responses array can be long)."""
    book = codebook(survey, current)
    yield f'{{"format": {json.dumps(REPORTS_FORMAT)}, "codebook": {json.dumps(book, allow_nan=False)}, "responses": ['
    # Each response as json.dumps writes {"id", "submitted_on", "mechanism_version", "reports"(, "weight")}, its
    # reports in question-id order (the order the export always had), pieced together from per-value lookups.
    in_id_order = sorted(current, key=lambda q: q.id)
    weights = export_weights.column(survey, current, in_id_order)
    days = Lookup(lambda day: f'", "submitted_on": {json.dumps(day.isoformat())}, "mechanism_version": ', None)
    versions = Lookup(lambda version: f'{json.dumps(version)}, "reports": {{', None)
    reports = [Lookup(functools.partial(_json_report, q), "") for q in in_id_order]
    separator = "\n"
    for block in report_blocks.blocks(survey, in_id_order):
        cells = [map(lookup.__getitem__, column) for lookup, column in zip(reports, block.values, strict=True)]
        rows = zip(*cells, strict=True)
        joined = map(", ".join, rows if block.complete else (filter(None, row) for row in rows))
        starts = itertools.chain([separator + '{"id": "'], itertools.repeat(',\n{"id": "', len(block) - 1))
        ends = (itertools.repeat("}}", len(block)) if weights is None else
                (f'}}, "weight": {json.dumps(w)}}}' for w in weights.of(block)))
        yield "".join(itertools.chain.from_iterable(zip(
            starts, block.ids, map(days.__getitem__, block.days), map(versions.__getitem__, block.versions),
            joined, ends, strict=True)))
        separator = ",\n"
    if weights is not None:
        weights.check_used()
    yield "\n]}\n"


class _Echo:
    """A file-like object whose write returns the line, so csv.writer can feed a stream."""

    def write(self, value: str) -> str:
        return value

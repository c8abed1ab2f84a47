"""Exports from which a statistician can redo the analysis without this app.

Under /results/<slug>/export/:

- estimates.csv: one row per (question, option): the results service's numbers, with the
  same confidence/interval/simultaneous parameters as the dashboard and the API.
- crosstab.csv?a=<id>&b=<id>: one row per (option of A, option of B): the cross-tab service's
  numbers (surveys.aggregation.crosstab): the count of report pairs, the joint estimate with its
  standard error and interval, P(B = b | A = a) and P(A = a | B = b) with theirs and whether the
  conditioning answer's interval stays above 0 (bounded); header only when no response has both.
- reports.csv: one row per response. Columns: response_id, submitted_on (a day),
  mechanism_version, then per question in order: an index question (q-RR, bit flip, k-RR)
  has one column `q<order>` with the reported option index (0-based, in the codebook's
  option order; for yes/no 0 = No, 1 = Yes); a unary question (SUE, OUE) has one column
  per option, `q<order>_<j>`, with the reported bit (0/1) for option j.
- reports.json: {"format": REPORTS_FORMAT, "codebook": <the codebook>, "responses":
  [{"id", "submitted_on", "mechanism_version", "reports": {"q1": 0, "q4": [0, 1, 0, 0]}}]},
  index reports as integers, unary reports as lists of k bits (bit j = option j).
- codebook.json: every question's mechanism as `ldp.Mechanism.describe()` gives it: p and
  q_other (the channel: P(report j | truth j) and P(report j | truth i != j), per bit for unary
  encodings) as floats and as exact fractions of the browser's sampler integers, the configured
  and effective epsilon, the sampler and its rule; the options and the report encoding.
  Debiasing: pi_hat_j = (c_j / n - q_other) / (p - q_other),
  Var = lambda_j (1 - lambda_j) / (n (p - q_other)^2).
  A direct question (not randomized, its answer sent as given) says "randomized": false, its
  mechanism name and sampler kind are "direct", p = 1, q_other = 0 (the estimate is the observed
  fraction, with an ordinary binomial interval) and its effective epsilon is null (infinite: it has
  no deniability); the survey's epsilon_total counts the randomized questions only. In
  estimates.csv its effective_epsilon cell is empty.

The report exports stream: one query read in chunks (values_list + iterator), one
response at a time out, so memory does not grow with the number of reports.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Iterator
from typing import Any

from surveys.collection import plan
from surveys.collection.models import Report, Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from .crosstab import CrossTab
from .results import SurveyResults

CODEBOOK_FORMAT = "ldp-survey-codebook/2"
REPORTS_FORMAT = "ldp-survey-reports/2"
CHUNK = 2000
FIXED_COLUMNS = ["response_id", "submitted_on", "mechanism_version"]
ESTIMATE_COLUMNS = [
    "question_id", "question_key", "question_order", "question_text", "mechanism", "effective_epsilon",
    "p", "q_other", "n", "option_index", "option_label", "count", "estimate", "std_error", "ci_low", "ci_high",
    "confidence", "interval", "simultaneous", "interval_level", "clipped", "simplex",
]


def filename(survey: Survey, name: str) -> str:
    return f"{survey.slug}-{name}"


def columns(question: PlannedQuestion) -> list[str]:
    if question.mechanism.unary:
        return [f"{question.key}_{j}" for j in range(question.mechanism.k)]
    return [question.key]


def codebook(survey: Survey, current: SurveyPlan | None = None) -> dict[str, Any]:
    """Everything needed to read and debias the reports."""
    current = current or plan.of(survey)
    return {
        "format": CODEBOOK_FORMAT,
        "survey": {"slug": survey.slug, "title": survey.title, "status": survey.status,
                   "mechanism_version": current.version, "epsilon_total": current.epsilon_total,
                   "epsilon_budget": survey.epsilon_budget},
        "debiasing": {
            "counts": "c_j = number of reports of option j (index encoding), or number of reports "
                      "whose bit j is 1 (bits encoding); n = number of reports of the question",
            "estimate": "pi_hat_j = (c_j / n - q_other) / (p - q_other)  (unbiased)",
            "variance": "Var(pi_hat_j) = lambda_j (1 - lambda_j) / (n (p - q_other)^2), lambda_j = c_j / n",
            "interval": "an interval for lambda_j (Wilson with continuity correction, or Clopper-Pearson) "
                        "mapped through the same affine map and clipped to [0, 1]",
            "direct": "a question with \"randomized\": false is not randomized (its answer is sent as given): "
                      "p = 1, q_other = 0, so pi_hat_j = c_j / n with an ordinary binomial interval; its "
                      "effective_epsilon is null (infinite) and epsilon_total leaves it out",
        },
        "reports_csv_columns": FIXED_COLUMNS + [c for q in current for c in columns(q)],
        "questions": [_question_entry(q) for q in current],
    }


def _question_entry(question: PlannedQuestion) -> dict[str, Any]:
    mechanism = question.mechanism
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
            "json": f"a list of {mechanism.k} bits, bit j for option j" if mechanism.unary
                    else f"an integer option index from 0 to {mechanism.k - 1}",
        },
    }


def described(mechanism: Any) -> dict[str, Any]:
    """`Mechanism.describe()` as JSON can carry it: a direct question's infinite epsilon is null."""
    found = {**mechanism.describe(), "randomized": mechanism.randomized}
    if not math.isfinite(found["effective_epsilon"]):
        found["effective_epsilon"] = None
    return found


def estimate_rows(results: SurveyResults) -> Iterator[list[Any]]:
    """Header, then one row per (question, option); undefined numbers (no reports) are empty."""
    o = results.options
    yield ESTIMATE_COLUMNS
    for r in results.questions:
        q, m = r.question, r.mechanism
        for row in r.rows:
            yield [q.id, q.key, q.order, q.text, m.name, _cell(m.effective_epsilon), m.p, m.q_other, r.n, row.index,
                   row.label, row.count, *map(_cell, (row.estimate, row.std_error, row.ci_low, row.ci_high)),
                   o.confidence, o.interval, str(o.simultaneous).lower(), r.level,
                   _cell(row.clipped), _cell(row.simplex)]


CROSSTAB_COLUMNS = [
    "a_id", "a_key", "b_id", "b_key", "n", "confidence", "a_index", "a_label", "b_index", "b_label", "count",
    "estimate", "std_error", "ci_low", "ci_high",
    "b_given_a", "b_given_a_std_error", "b_given_a_ci_low", "b_given_a_ci_high", "b_given_a_bounded",
    "a_given_b", "a_given_b_std_error", "a_given_b_ci_low", "a_given_b_ci_high", "a_given_b_bounded",
]


def crosstab_rows(table: CrossTab) -> Iterator[list[Any]]:
    """Header, then one row per cell; undefined numbers (a denominator of 0) are empty."""
    yield CROSSTAB_COLUMNS
    for c in table.cells:
        yield [table.a.id, table.a.key, table.b.id, table.b.key, table.n, table.confidence,
               c.a_index, c.a_label, c.b_index, c.b_label, c.count, *map(_cell, c.joint),
               *map(_cell, c.b_given_a[:4]), str(c.b_given_a[4]).lower(),
               *map(_cell, c.a_given_b[:4]), str(c.a_given_b[4]).lower()]


def responses(survey: Survey, current: SurveyPlan) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(id, day, version, {question key: report}) per response, from one streamed query."""
    questions = {q.id: q for q in current}
    rows = (Report.objects.filter(response__survey=survey).order_by("response_id", "question_id")
            .values_list("response_id", "response__submitted_on", "response__mechanism_version",
                         "question_id", "value")
            .iterator(chunk_size=CHUNK))
    for (response_id, day, version), group in itertools.groupby(rows, key=lambda row: row[:3]):
        reports = {}
        for *_, question_id, value in group:
            question = questions[question_id]
            reports[question.key] = question.mechanism.decode(value)
        yield str(response_id), day.isoformat(), version, reports


def report_csv_lines(survey: Survey, current: SurveyPlan) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow(FIXED_COLUMNS + [c for q in current for c in columns(q)])
    for response_id, day, version, reports in responses(survey, current):
        cells: list[Any] = []
        for q in current:
            value = reports.get(q.key, [""] * len(columns(q)))  # a missing report: every column of it empty
            cells += value if isinstance(value, list) else [value]
        yield writer.writerow([response_id, day, version, *cells])


def report_json_chunks(survey: Survey, current: SurveyPlan) -> Iterator[str]:
    """The JSON export, written piece by piece (the responses array can be long)."""
    book = codebook(survey, current)
    yield f'{{"format": {json.dumps(REPORTS_FORMAT)}, "codebook": {json.dumps(book, allow_nan=False)}, "responses": ['
    separator = "\n"
    for response_id, day, version, reports in responses(survey, current):
        yield separator + json.dumps({"id": response_id, "submitted_on": day,
                                      "mechanism_version": version, "reports": reports})
        separator = ",\n"
    yield "\n]}\n"


class _Echo:
    """A file-like object whose write returns the line, so csv.writer can feed a stream."""

    def write(self, value: str) -> str:
        return value


def _cell(x: float) -> float | str:
    return x if math.isfinite(x) else ""

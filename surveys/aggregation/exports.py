"""Exports from which a statistician can redo the analysis without this app.

Under /results/<slug>/export/:

- estimates.csv: one row per (question, option): the results service's numbers, with the
  same confidence/interval/simultaneous parameters as the dashboard and the API.
- reports.csv: one row per response. Columns: response_id, submitted_on (a day),
  mechanism_version, then per question in order: an index question (q-RR, bit flip, k-RR)
  has one column `q<order>` with the reported option index (0-based, in the codebook's
  option order; for yes/no 0 = No, 1 = Yes); a unary question (SUE, OUE) has one column
  per option, `q<order>_<j>`, with the reported bit (0/1) for option j.
- reports.json: {"format": REPORTS_FORMAT, "codebook": <the codebook>, "responses":
  [{"id", "submitted_on", "mechanism_version", "reports": {"q1": 0, "q4": [0, 1, 0, 0]}}]},
  index reports as integers, unary reports as lists of k bits (bit j = option j).
- codebook.json: every question's mechanism and exact parameters: p and q (the channel:
  P(report j | truth j) and P(report j | truth i != j), per bit for unary encodings) as
  floats and as exact fractions of the browser's sampler integers, the configured and
  effective epsilon, the options and the report encoding. Debiasing:
  pi_hat_j = (c_j / n - q) / (p - q), Var = lambda_j (1 - lambda_j) / (n (p - q)^2).

The report exports stream: one query read in chunks (values_list + iterator), one
response at a time out, so memory does not grow with the number of reports.
"""

from __future__ import annotations

import csv
import itertools
import json
import math

import ldp
from surveys.collection.models import Report, Survey

from .results import SurveyResults

CODEBOOK_FORMAT = "ldp-survey-codebook/1"
REPORTS_FORMAT = "ldp-survey-reports/1"
CHUNK = 2000
FIXED_COLUMNS = ["response_id", "submitted_on", "mechanism_version"]
ESTIMATE_COLUMNS = [
    "question_id", "question_key", "question_order", "question_text", "mechanism", "effective_epsilon",
    "p", "q", "n", "option_index", "option_label", "count", "estimate", "std_error", "ci_low", "ci_high",
    "confidence", "interval", "simultaneous", "interval_level", "clipped", "simplex",
]
SAMPLER_RULES = {
    "grr": "U uniform in [0, modulus); U < keep reports the true option, otherwise the "
           "((U - keep) div other)-th of the other k - 1 options in increasing order. "
           "p = keep / modulus, q = other / modulus.",
    "unary": "A one-hot vector of k bits; each bit independently reported as 1 with probability "
             "one_if_true / modulus where the truth is, one_if_false / modulus elsewhere. "
             "p = one_if_true / modulus, q = one_if_false / modulus.",
}


def filename(survey: Survey, name: str) -> str:
    return f"{survey.slug}-{name}"


def key(question) -> str:
    return f"q{question.order}"


def columns(question, mechanism) -> list[str]:
    if _unary(mechanism):
        return [f"{key(question)}_{j}" for j in range(mechanism.k)]
    return [key(question)]


def codebook(survey: Survey, pairs) -> dict:
    """Everything needed to read and debias the reports, for (question, mechanism) pairs."""
    return {
        "format": CODEBOOK_FORMAT,
        "survey": {"slug": survey.slug, "title": survey.title, "status": survey.status,
                   "mechanism_version": survey.mechanism_version(),
                   "epsilon_total": ldp.survey_epsilon(m for _, m in pairs),
                   "epsilon_budget": survey.epsilon_budget},
        "debiasing": {
            "counts": "c_j = number of reports of option j (index encoding), or number of reports "
                      "whose bit j is 1 (bits encoding); n = number of reports of the question",
            "estimate": "pi_hat_j = (c_j / n - q) / (p - q)  (unbiased)",
            "variance": "Var(pi_hat_j) = lambda_j (1 - lambda_j) / (n (p - q)^2), lambda_j = c_j / n",
            "interval": "an interval for lambda_j (Wilson with continuity correction, or Clopper-Pearson) "
                        "mapped through the same affine map and clipped to [0, 1]",
        },
        "reports_csv_columns": FIXED_COLUMNS + [c for q, m in pairs for c in columns(q, m)],
        "questions": [_question_entry(q, m) for q, m in pairs],
    }


def _question_entry(question, mechanism) -> dict:
    sampler = mechanism.sampler()
    unary = _unary(mechanism)
    high, low = ("one_if_true", "one_if_false") if unary else ("keep", "other")
    return {
        "key": key(question),
        "id": question.pk,
        "order": question.order,
        "text": question.text,
        "kind": question.kind,
        "options": question.labels(),
        "mechanism": {
            "name": mechanism.name,
            "label": mechanism.label,
            "parameters": mechanism.to_dict(),
            "effective_epsilon": mechanism.effective_epsilon,
            "q_equivalent": ldp.q_from_epsilon(mechanism.effective_epsilon) if mechanism.name in ldp.YES_NO else None,
            "p": mechanism.p,
            "q": mechanism.q,
            "p_exact": f"{sampler[high]}/{sampler['modulus']}",
            "q_exact": f"{sampler[low]}/{sampler['modulus']}",
            "sampler": sampler,
            "sampler_rule": SAMPLER_RULES[sampler["kind"]],
        },
        "report": {
            "encoding": "bits" if unary else "index",
            "csv_columns": columns(question, mechanism),
            "json": f"a list of {mechanism.k} bits, bit j for option j" if unary
                    else f"an integer option index from 0 to {mechanism.k - 1}",
        },
    }


def estimate_rows(results: SurveyResults):
    """Header, then one row per (question, option); undefined numbers (no reports) are empty."""
    o = results.options
    yield ESTIMATE_COLUMNS
    for r in results.questions:
        m = r.mechanism
        for row in r.rows:
            yield [r.question.pk, r.key, r.question.order, r.question.text, m.name, m.effective_epsilon,
                   m.p, m.q, r.n, row.index, row.label, row.count, *map(_cell, (
                       row.estimate, row.std_error, row.ci_low, row.ci_high)),
                   o.confidence, o.interval, str(o.simultaneous).lower(), r.level,
                   _cell(row.clipped), _cell(row.simplex)]


def responses(survey: Survey, pairs):
    """(id, day, version, {question key: report}) per response, from one streamed query."""
    questions = {q.pk: (key(q), m.k if _unary(m) else None) for q, m in pairs}
    rows = (Report.objects.filter(response__survey=survey).order_by("response_id", "question_id")
            .values_list("response_id", "response__submitted_on", "response__mechanism_version",
                         "question_id", "value")
            .iterator(chunk_size=CHUNK))
    for (response_id, day, version), group in itertools.groupby(rows, key=lambda row: row[:3]):
        reports = {}
        for *_, question_id, value in group:
            name, bits = questions[question_id]
            reports[name] = value if bits is None else [(value >> j) & 1 for j in range(bits)]
        yield str(response_id), day.isoformat(), version, reports


def report_csv_lines(survey: Survey, pairs):
    writer = csv.writer(_Echo())
    yield writer.writerow(FIXED_COLUMNS + [c for q, m in pairs for c in columns(q, m)])
    names = [key(q) for q, _ in pairs]
    for response_id, day, version, reports in responses(survey, pairs):
        cells = []
        for name in names:
            value = reports.get(name, "")
            cells += value if isinstance(value, list) else [value]
        yield writer.writerow([response_id, day, version, *cells])


def report_json_chunks(survey: Survey, pairs):
    """The JSON export, written piece by piece (the responses array can be long)."""
    book = codebook(survey, pairs)
    yield '{"format": %s, "codebook": %s, "responses": [' % (json.dumps(REPORTS_FORMAT), json.dumps(book))
    separator = "\n"
    for response_id, day, version, reports in responses(survey, pairs):
        yield separator + json.dumps({"id": response_id, "submitted_on": day,
                                      "mechanism_version": version, "reports": reports})
        separator = ",\n"
    yield "\n]}\n"


class _Echo:
    """A file-like object whose write returns the line, so csv.writer can feed a stream."""

    def write(self, value):
        return value


def _unary(mechanism) -> bool:
    return mechanism.sampler()["kind"] == "unary"


def _cell(x: float):
    return x if math.isfinite(x) else ""

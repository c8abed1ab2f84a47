"""Exports: estimates CSV, reports CSV/JSON and the codebook, enough to redo the analysis elsewhere.

Exports of multi-select, numeric and ordinal questions, enough to redo every estimate without this app or ldp: the
reports CSV (a multi-select's bits, a 1-bit mean's bit, discrete Laplace's report as sent), the codebook (scale, bins,
scores, each mechanism's integers and the formulas) and the estimates CSV (a mean row, a mean score row)."""

import csv
import io
import itertools
import json
import math
import uuid
from fractions import Fraction
from statistics import NormalDist

import jsonschema
import numpy as np
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

import ldp
from ldp.sequences import fractions as sequences
from surveys.aggregation.exports import figure_tables
from surveys.aggregation.exports import reports as exports
from surveys.collection import builder, plan
from tests.aggregation.support import add_responses
from tests.factories import INEXACT_BITFLIP_EPSILONS, assert_q_of_the_effective_epsilon

MECHANISM = {
    "type": "object",
    "required": ["name", "label", "parameters", "effective_epsilon", "p", "q_other", "p_exact", "q_other_exact",
                 "sampler"],
    "properties": {
        "name": {"enum": ["qrr", "bitflip", "krr", "sue", "oue"]},
        "effective_epsilon": {"type": "number", "exclusiveMinimum": 0},
        "p": {"type": "number", "minimum": 0, "maximum": 1},
        "q_other": {"type": "number", "minimum": 0, "maximum": 1},
        "p_exact": {"type": "string", "pattern": r"^\d+/\d+$"},
        "q_other_exact": {"type": "string", "pattern": r"^\d+/\d+$"},
        "sampler": {"type": "object", "required": ["kind", "k", "modulus"],
                    "properties": {"kind": {"enum": ["grr", "unary"]}, "modulus": {"type": "integer"}}},
    },
}
CODEBOOK = {
    "type": "object",
    "required": ["format", "survey", "debiasing", "reports_csv_columns", "questions"],
    "properties": {
        "format": {"const": "ldp-survey-codebook/2"},
        "survey": {"type": "object", "required": ["slug", "mechanism_version", "epsilon_total"]},
        "reports_csv_columns": {"type": "array", "items": {"type": "string"}},
        "questions": {"type": "array", "items": {
            "type": "object",
            "required": ["key", "id", "order", "text", "kind", "options", "mechanism", "report"],
            "properties": {
                "key": {"type": "string", "pattern": r"^q\d+$"},
                "options": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "mechanism": MECHANISM,
                "report": {"type": "object", "required": ["encoding", "csv_columns"],
                           "properties": {"encoding": {"enum": ["index", "bits"]}}},
            },
        }},
    },
}
REPORTS = {
    "type": "object",
    "required": ["format", "codebook", "responses"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": "ldp-survey-reports/2"},
        "codebook": CODEBOOK,
        "responses": {"type": "array", "items": {
            "type": "object",
            "required": ["id", "submitted_on", "mechanism_version", "reports"],
            "additionalProperties": False,
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "submitted_on": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                "mechanism_version": {"type": "string"},
                "reports": {"type": "object", "additionalProperties": {"oneOf": [
                    {"type": "integer", "minimum": 0},
                    {"type": "array", "items": {"enum": [0, 1]}},
                ]}},
            },
        }},
    },
}


def download(client, user, survey, name, query=""):
    client.force_login(user)
    response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]) + query)
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response, body.decode()


def rows(text):
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("name,filename,content_type", [
    ("estimates", "health-estimates.csv", "text/csv"),
    ("reports-csv", "health-reports.csv", "text/csv"),
    ("reports-json", "health-reports.json", "application/json"),
    ("codebook", "health-codebook.json", "application/json"),
])
def test_each_export_is_a_named_attachment(client, owner, survey, name, filename, content_type):
    response, _ = download(client, owner, survey, name)
    assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
    assert response["Content-Type"].startswith(content_type)


@pytest.mark.parametrize("name", ["reports-csv", "reports-json"])
def test_the_report_exports_stream(client, owner, survey, name):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]))
    assert isinstance(response, StreamingHttpResponse)


def test_every_export_renders_with_no_one_or_many_responses(client, owner, sized_survey):
    n = sized_survey.responses.count()
    _, text = download(client, owner, sized_survey, "reports-csv")
    assert len(rows(text)) == n + 1
    _, text = download(client, owner, sized_survey, "reports-json")
    assert len(json.loads(text)["responses"]) == n
    _, text = download(client, owner, sized_survey, "estimates")
    assert len(rows(text)) == 1 + 2 + 2 + 3 + 4
    _, text = download(client, owner, sized_survey, "codebook")
    assert len(json.loads(text)["questions"]) == 4


def test_the_estimates_csv_has_a_header_and_the_apis_numbers(client, owner, survey):
    add_responses(survey, 120, seed=41)
    _, text = download(client, owner, survey, "estimates", "?confidence=0.9&simultaneous=on")
    header, *body = rows(text)
    assert header == figure_tables.ESTIMATE_COLUMNS
    api = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + "?confidence=0.9&simultaneous=on")
    expected = [(q["id"], o) for q in api.json()["questions"] for o in q["options"]]
    assert len(body) == len(expected)
    for row, (question_id, option) in zip(body, expected, strict=True):
        record = dict(zip(header, row, strict=True))
        assert int(record["question_id"]) == question_id and record["option_label"] == option["label"]
        assert int(record["count"]) == option["count"]
        for column in ("estimate", "std_error", "ci_low", "ci_high"):
            assert float(record[column]) == pytest.approx(option[column], rel=1e-12)
        assert record["confidence"] == "0.9" and record["simultaneous"] == "true"


def test_the_estimates_csv_leaves_undefined_numbers_empty(client, owner, survey):
    _, text = download(client, owner, survey, "estimates")
    header, first, *_ = rows(text)
    record = dict(zip(header, first, strict=True))
    assert record["n"] == "0" and record["estimate"] == "" and record["std_error"] == ""


def test_the_estimates_csv_refuses_a_bad_parameter(client, owner, survey):
    client.force_login(owner)
    response = client.get(reverse("aggregation:export-estimates", args=[survey.slug]) + "?interval=wald")
    assert response.status_code == 400 and b"interval" in response.content


def test_the_reports_csv_has_one_row_per_response_and_the_codebooks_columns(client, owner, survey):
    reports = add_responses(survey, 50, seed=42)
    _, text = download(client, owner, survey, "reports-csv")
    header, *body = rows(text)
    book = json.loads(download(client, owner, survey, "codebook")[1])
    assert header == book["reports_csv_columns"]
    assert header == ["response_id", "submitted_on", "mechanism_version", "q1", "q2", "q3",
                      "q4_0", "q4_1", "q4_2", "q4_3"]
    assert len(body) == 50 and len({row[0] for row in body}) == 50
    assert {row[2] for row in body} == {plan.of(survey).version}
    for column, question in zip(("q1", "q2", "q3"), list(reports)[:3], strict=True):
        values = sorted(int(row[header.index(column)]) for row in body)
        assert values == sorted(int(v) for v in reports[question])


def test_the_reports_json_validates_against_its_documented_structure(client, owner, sized_survey):
    _, text = download(client, owner, sized_survey, "reports-json")
    document = json.loads(text)
    jsonschema.validate(document, REPORTS)
    for response in document["responses"]:
        assert set(response["reports"]) == {"q1", "q2", "q3", "q4"}
        assert len(response["reports"]["q4"]) == 4


def test_the_codebook_carries_each_mechanisms_exact_parameters(client, owner, survey):
    _, text = download(client, owner, survey, "codebook")
    book = json.loads(text)
    jsonschema.validate(book, CODEBOOK)
    for entry, question in zip(book["questions"], survey.ordered_questions(), strict=True):
        mechanism = question.mechanism()
        described = entry["mechanism"]
        assert described["name"] == mechanism.name
        assert described["effective_epsilon"] == mechanism.effective_epsilon
        assert (described["p"], described["q_other"]) == (mechanism.p, mechanism.q_other)
        assert float(Fraction(described["p_exact"])) == mechanism.p
        assert float(Fraction(described["q_other_exact"])) == mechanism.q_other
        assert described["sampler"] == mechanism.sampler()
        assert entry["options"] == question.labels()
    assert book["questions"][0]["mechanism"]["parameters"] == {"mechanism": "qrr", "q": "0.5"}
    assert book["questions"][3]["report"]["encoding"] == "bits"


def test_the_json_export_embeds_the_codebook(client, owner, survey):
    _, reports = download(client, owner, survey, "reports-json")
    _, book = download(client, owner, survey, "codebook")
    assert json.loads(reports)["codebook"] == json.loads(book)


def api_questions(client, survey):
    return client.get(reverse("aggregation:api-estimates", args=[survey.slug])).json()["questions"]


def debias_with_numpy(counts, n, mechanism):
    """What a statistician does with the codebook alone: p and q from the sampler's integers."""
    sampler = mechanism["sampler"]
    high, low = ("one_if_true", "one_if_false") if sampler["kind"] == "unary" else ("keep", "other")
    p, q = sampler[high] / sampler["modulus"], sampler[low] / sampler["modulus"]
    lam = np.asarray(counts, dtype=float) / n
    return (lam - q) / (p - q), np.sqrt(lam * (1 - lam) / n) / (p - q)


def test_estimates_recomputed_from_the_csv_and_codebook_alone_equal_the_apis(client, owner, survey):
    add_responses(survey, 400, seed=43, truth={1: [0.8, 0.2], 3: [0.5, 0.3, 0.2], 4: [0.4, 0.3, 0.2, 0.1]})
    book = json.loads(download(client, owner, survey, "codebook")[1])
    header, *body = rows(download(client, owner, survey, "reports-csv")[1])
    table = np.array([[int(cell) for cell in row[3:]] for row in body])
    api = {q["key"]: q for q in api_questions(client, survey)}
    for entry in book["questions"]:
        columns = [header.index(c) - 3 for c in entry["report"]["csv_columns"]]
        k = len(entry["options"])
        if entry["report"]["encoding"] == "bits":
            counts = table[:, columns].sum(axis=0)
        else:
            counts = np.bincount(table[:, columns[0]], minlength=k)
        estimate, std_error = debias_with_numpy(counts, len(body), entry["mechanism"])
        options = api[entry["key"]]["options"]
        assert estimate == pytest.approx([o["estimate"] for o in options], rel=1e-12, abs=1e-12)
        assert std_error == pytest.approx([o["std_error"] for o in options], rel=1e-12)


def test_estimates_recomputed_from_the_json_export_alone_equal_the_apis(client, owner, survey):
    add_responses(survey, 300, seed=44)
    document = json.loads(download(client, owner, survey, "reports-json")[1])
    api = {q["key"]: q for q in api_questions(client, survey)}
    n = len(document["responses"])
    for entry in document["codebook"]["questions"]:
        values = [response["reports"][entry["key"]] for response in document["responses"]]
        k = len(entry["options"])
        counts = np.sum(values, axis=0) if entry["report"]["encoding"] == "bits" else np.bincount(values, minlength=k)
        estimate, _ = debias_with_numpy(counts, n, entry["mechanism"])
        assert estimate == pytest.approx([o["estimate"] for o in api[entry["key"]]["options"]], rel=1e-12, abs=1e-12)


def test_the_codebooks_q_equivalent_is_that_of_the_effective_epsilon(client, owner, every_mechanism_survey):
    book = json.loads(download(client, owner, every_mechanism_survey, "codebook")[1])
    by_order = {entry["order"]: entry["mechanism"] for entry in book["questions"]}
    for order, epsilon in INEXACT_BITFLIP_EPSILONS.items():
        assert_q_of_the_effective_epsilon(by_order[order]["q_equivalent"], ldp.BitFlip(epsilon))
    assert [by_order[order]["q_equivalent"] for order in (5, 6, 7)] == [None, None, None]



# --- the estimates CSV, column by column against the estimates API ------------------------------


def _number(cell):
    """An empty cell is an undefined number, null in the API."""
    return None if cell == "" else float(cell)


def _flag(cell):
    return {"true": True, "false": False}[cell]


# Every column of estimates.csv: (where its value is in the estimates API's answer: the whole
# survey, the row's question or the row's option; the key path there; how to read the cell).
# A column or key renamed in the CSV and the API is a change of one line here.
ESTIMATES_CSV_FROM_API = {
    "question_id": ("question", "id", int),
    "question_key": ("question", "key", str),
    "question_order": ("question", "order", int),
    "question_text": ("question", "text", str),
    "mechanism": ("question", "mechanism.name", str),
    "effective_epsilon": ("question", "mechanism.effective_epsilon", float),
    "p": ("question", "mechanism.p", float),
    "q_other": ("question", "mechanism.q_other", float),
    "n": ("question", "n", int),
    "option_index": ("option", "index", int),
    "option_label": ("option", "label", str),
    "count": ("option", "count", int),
    "estimate": ("option", "estimate", _number),
    "std_error": ("option", "std_error", _number),
    "ci_low": ("option", "ci_low", _number),
    "ci_high": ("option", "ci_high", _number),
    "confidence": ("survey", "confidence", float),
    "interval": ("survey", "interval", str),
    "simultaneous": ("survey", "simultaneous", _flag),
    "interval_level": ("question", "interval_level", float),
    "clipped": ("option", "post_processed.clipped", _number),
    "simplex": ("option", "post_processed.simplex", _number),
    # Added deliberately (issue 14, item 5): an interval wholly outside [0, 1] is flagged, unclipped.
    "ci_low_unclipped": ("option", "ci_low_unclipped", _number),
    "ci_high_unclipped": ("option", "ci_high_unclipped", _number),
    # Added deliberately (issue 27, item 2): the planning size of intervals valid at any time, empty if fixed-n.
    "planned": ("survey", "planned", lambda cell: int(cell) if cell else None),
    # Added deliberately (issue 39, item 6): their level, the survey's planned confidence, empty if fixed-n.
    "sequence_confidence": ("survey", "sequence_confidence", lambda cell: float(cell) if cell else None),
    "inconsistent": ("option", "inconsistent", _flag),
    # Added deliberately (issue 24, item 19): the one rule for too few respondents, its planner and reason.
    "respondents_needed": ("question", "planner.respondents_needed", int),
    "too_few": ("question", "too_few", _flag),
    "warning": ("question", "warning", lambda cell: cell or None),
    # Added deliberately (issue 26, item 1): with weighted=on, the responses weighted and the effective n.
    "weights_n": ("survey", "weights.n", lambda cell: int(cell) if cell else None),
    "effective_n": ("survey", "weights.effective_n", _number),
}

# Reports per option (index questions) or 1-bits per option (unary ones), by question order in
# `every_mechanism_survey`, out of N_REPORTED responses: some estimates fall below 0 or above 1,
# so the clipped, simplex-projected and unbiased estimates differ, and intervals are clipped.
N_REPORTED = 40
REPORTED = {1: [2, 38], 2: [30, 10], 3: [20, 20], 4: [1, 39], 5: [1, 15, 24], 6: [10, 20, 30],
            7: [5, 12, 20, 30]}


def submit_reported(client, survey):
    """Post N_REPORTED responses with the REPORTED counts through the respondent API."""
    definition = client.get(reverse("collection:api-survey", args=[survey.slug])).json()
    for i in range(N_REPORTED):
        reports = {}
        for question in definition["questions"]:
            counts = REPORTED[question["order"]]
            if question["mechanism"]["encoding"] == "bits":
                reports[str(question["id"])] = [int(i < count) for count in counts]
            else:
                reports[str(question["id"])] = sum(i >= end for end in itertools.accumulate(counts))
        body = {"version": definition["version"], "key": str(uuid.uuid4()), "reports": reports}
        response = client.post(reverse("collection:api-responses", args=[survey.slug]),
                               data=json.dumps(body), content_type="application/json")
        assert response.status_code == 201, response.content


def _at(value, path):
    for name in path.split("."):
        value = None if value is None else value[name]  # unweighted figures have no weights
    return value


@pytest.mark.slow
@pytest.mark.parametrize("query", ["", "?confidence=0.9&interval=exact&simultaneous=on"],
                         ids=["defaults", "confidence-0.9-exact-simultaneous"])
def test_every_column_of_the_estimates_csv_is_the_apis_value(client, owner, every_mechanism_survey, query):
    survey = every_mechanism_survey
    submit_reported(client, survey)
    header, *body = rows(download(client, owner, survey, "estimates", query)[1])
    api = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + query).json()
    assert sorted(header) == sorted(ESTIMATES_CSV_FROM_API)
    expected = [(question, option) for question in api["questions"] for option in question["options"]]
    assert len(body) == len(expected) == sum(len(counts) for counts in REPORTED.values())
    for row, (question, option) in zip(body, expected, strict=True):
        scopes = {"survey": api, "question": question, "option": option}
        for column, cell in zip(header, row, strict=True):
            scope, path, read = ESTIMATES_CSV_FROM_API[column]
            # Both carry the same Python value: a float is written as its shortest repr by the
            # csv module and by JSON, and read back exactly, so equality is exact.
            assert read(cell) == _at(scopes[scope], path), (question["key"], option["index"], column)
    # The data is such that a column put in another's place would be seen.
    options = [option for _, option in expected]
    assert any(o["estimate"] < 0 for o in options) and any(o["estimate"] > 1 for o in options)
    assert any(len({o["estimate"], o["post_processed"]["clipped"], o["post_processed"]["simplex"]}) == 3
               for o in options)
    assert any(o["ci_low"] == 0.0 for o in options) and any(o["ci_high"] == 1.0 for o in options)
    assert {q["mechanism"]["name"] for q in api["questions"]} == {"qrr", "bitflip", "krr", "sue", "oue"}
    assert {q["order"]: [o["count"] for o in q["options"]] for q in api["questions"]} == REPORTED


@pytest.mark.parametrize("ones, n, planned, confidence",
                         [(831, 2435, 2435, 0.95), (3, 40, 1000, 0.99), (0, 7, 500, 0.9)])
def test_the_codebooks_anytime_interval_is_the_one_ldp_computes(ones, n, planned, confidence):
    """The codebook's words, read as a formula with the standard library alone, give ldp's interval for the
    report rate at one look: the text describes the code."""
    alpha = 1 - confidence
    c = -2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))
    s = max(planned / c - 1, 1.0)

    def log_beta(a, b):
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)

    def rejected(lam):  # M_n(lambda0) >= 1 / alpha
        log_m = (log_beta(s * lam + ones, s * (1 - lam) + n - ones) - log_beta(s * lam, s * (1 - lam))
                 - ones * math.log(lam) - (n - ones) * math.log1p(-lam))
        return log_m >= math.log(1 / alpha)

    def end(inside, outside):  # bisection between a kept and a rejected lambda0
        for _ in range(100):
            middle = (inside + outside) / 2
            inside, outside = (inside, middle) if rejected(middle) else (middle, outside)
        return inside

    centre = min(max(ones / n, 1e-12), 1 - 1e-12)
    low, high = sequences.binary_sequence([ones], [n], alpha, planned)
    for words in ("C_n = {lambda0 : M_n(lambda0) < 1 / alpha}", "s + 1 = t0 / c", "at least 1",
                  "c = -2 ln(alpha) + ln(1 - 2 ln(alpha))", "B(s lambda0 + c_j, s (1 - lambda0) + n - c_j) / "
                  "B(s lambda0, s (1 - lambda0)) / (lambda0^c_j (1 - lambda0)^(n - c_j))"):
        assert words in exports.ANYTIME_INTERVAL  # the formula implemented above
    assert end(centre, 1e-15) == pytest.approx(float(low[0]), abs=1e-9)
    assert end(centre, 1 - 1e-15) == pytest.approx(float(high[0]), abs=1e-9)


TRUTH = {1: [0.6, 0.3, 0.2, 0.05], 2: [1 / 101] * 101, 5: [0.4, 0.3, 0.2, 0.1]}


def download_text(client, owner, survey, name, query=""):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]) + query)
    assert response.status_code == 200
    return (b"".join(response.streaming_content) if response.streaming else response.content).decode()


@pytest.fixture
def answered(kinds_survey):
    builder.simulate_responses(kinds_survey, 600, TRUTH, seed=21)
    return kinds_survey


def test_the_codebook_describes_each_new_kind(client, owner, answered):
    book = json.loads(download_text(client, owner, answered, "codebook"))
    multi, onebit, dlaplace, ages, gamble = book["questions"]
    assert multi["report"] == {"encoding": "bits", "csv_columns": ["q1_0", "q1_1", "q1_2", "q1_3"],
                               "json": "a list of 4 bits, bit j for option j"}
    assert multi["mechanism"]["hamming_d"] == 4 and multi["mechanism"]["at_most"] == 2
    assert onebit["scale"] == {"lo": "0", "hi": "100", "step": "1"} and onebit["report"]["csv_columns"] == ["q2"]
    assert onebit["report"]["json"] == "the bit 0 or 1 (1 leans toward hi)"
    bound = dlaplace["mechanism"]["bound"]
    assert dlaplace["report"]["json"].startswith(f"an integer r from {-bound} to {20 + bound}")
    assert dlaplace["mechanism"]["p"] is None and dlaplace["mechanism"]["scale_exact"] == "20/1"
    assert [b["lower"] for b in ages["bins"]] == ["0", "18", "35", "65"]
    assert gamble["scores"] == ["1", "2", "3", None]
    assert {"multiselect", "onebit", "dlaplace", "histogram", "ordinal"} <= set(book["debiasing"])


@pytest.mark.slow
def test_the_reports_csv_has_each_kinds_columns_and_discrete_laplace_as_sent(client, owner, answered):
    header, *body = list(csv.reader(io.StringIO(download_text(client, owner, answered, "reports-csv"))))
    assert header[3:] == ["q1_0", "q1_1", "q1_2", "q1_3", "q2", "q3", "q4", "q5"]
    bound = plan.of(answered).questions[2].mechanism.bound
    column = np.array([int(row[header.index("q3")]) for row in body])
    assert column.min() >= -bound and column.max() <= 20 + bound and (column < 0).any()  # noise below lo
    assert {row[header.index("q2")] for row in body} == {"0", "1"}


def redo(entry, table, header):
    """A question's estimate from the reports CSV and the codebook alone, with the codebook's formulas:
    per option (estimate, std error) for fractions, (mean, std error) for a numeric mean."""
    m, n = entry["mechanism"], len(table)
    columns = [header.index(c) for c in entry["report"]["csv_columns"]]
    values = table[:, columns]
    if m["name"] == "dlaplace":
        r = values[:, 0].astype(float)
        step, lo = float(entry["scale"]["step"]), float(entry["scale"]["lo"])
        spread = max(r.var(ddof=1), m["noise_variance"])
        return lo + step * r.mean(), step * math.sqrt(spread / n)
    sampler = m["sampler"]
    high, low = ("one_if_true", "one_if_false") if sampler["kind"] == "unary" else ("keep", "other")
    p = sampler[high] / sampler["modulus"]
    q = sampler[low] / sampler["modulus"] if low in sampler else 1 - p  # multiselect, onebit: flip = 1 - keep
    if m["name"] == "onebit":
        lam = values[:, 0].mean()
        lo, width = float(entry["scale"]["lo"]), float(entry["scale"]["hi"]) - float(entry["scale"]["lo"])
        return lo + width * (lam - q) / (p - q), width * math.sqrt(lam * (1 - lam) / n) / (p - q)
    if entry["report"]["encoding"] == "bits":
        counts = values.sum(axis=0)
    else:
        counts = np.bincount(values[:, 0], minlength=len(entry["options"]))
    lam = counts / n
    return (lam - q) / (p - q), np.sqrt(lam * (1 - lam) / n) / (p - q)


@pytest.mark.slow
def test_every_estimate_redone_from_the_reports_csv_and_codebook_alone_equals_the_apis(client, owner, answered):
    book = json.loads(download_text(client, owner, answered, "codebook"))
    header, *body = list(csv.reader(io.StringIO(download_text(client, owner, answered, "reports-csv"))))
    table = np.array([[int(cell) for cell in row[3:]] for row in body])
    header = header[3:]
    api = {q["key"]: q for q in client.get(reverse("aggregation:api-estimates", args=[answered.slug])).json()[
        "questions"]}
    for entry in book["questions"]:
        estimate, std_error = redo(entry, table, header)
        found = api[entry["key"]]
        if found["mean"] is not None and not found["options"]:
            assert (estimate, std_error) == pytest.approx((found["mean"]["mean"], found["mean"]["std_error"]), rel=1e-9)
        else:
            assert list(estimate) == pytest.approx([o["estimate"] for o in found["options"]], rel=1e-9, abs=1e-12)
            assert list(std_error) == pytest.approx([o["std_error"] for o in found["options"]], rel=1e-9)
        if entry["kind"] == "ordinal":  # the mean score over the scored levels, from the same fractions
            scores = entry["scores"]
            scored = [j for j, s in enumerate(scores) if s is not None]
            ratio = sum(float(scores[j]) * estimate[j] for j in scored) / sum(estimate[j] for j in scored)
            assert ratio == pytest.approx(found["mean"]["mean"], rel=1e-9)


def test_the_estimates_csv_has_a_mean_row_and_a_mean_score_row(client, owner, answered):
    header, *body = list(csv.reader(io.StringIO(
        download_text(client, owner, answered, "estimates", "?interval=wilson"))))
    records = [dict(zip(header, row, strict=True)) for row in body]
    api = client.get(reverse("aggregation:api-estimates", args=[answered.slug]) + "?interval=wilson").json()[
        "questions"]
    means = [r for r in records if r["option_index"] in ("mean", "mean_score")]
    assert [(r["question_key"], r["option_index"], r["mechanism"], r["interval"]) for r in means] == [
        ("q2", "mean", "onebit", "wilson"), ("q3", "mean", "dlaplace", "normal"), ("q5", "mean_score", "krr", "t")]
    for record in means:
        found = next(q for q in api if q["key"] == record["question_key"])["mean"]
        assert float(record["estimate"]) == pytest.approx(found["mean"])
        assert (float(record["ci_low"]), float(record["ci_high"])) == pytest.approx((found["ci_low"], found["ci_high"]))
        assert int(record["count"]) == 600
    laplace = next(r for r in records if r["question_key"] == "q3")
    assert laplace["p"] == laplace["q_other"] == ""  # an integer report has no p and q
    assert len([r for r in records if r["question_key"] == "q1"]) == 4 and all(
        r["simplex"] == "" for r in records if r["question_key"] == "q1")


@pytest.mark.slow
def test_the_normal_interval_of_discrete_laplace_is_the_estimate_plus_minus_z_standard_errors(client, owner, answered):
    client.force_login(owner)
    found = client.get(reverse("aggregation:api-estimates", args=[answered.slug]) + "?interval=wilson").json()[
        "questions"][2]["mean"]
    z = NormalDist().inv_cdf(0.975)
    assert found["ci_low"] == pytest.approx(max(0.0, found["mean"] - z * found["std_error"]))
    assert found["ci_high"] == pytest.approx(min(10.0, found["mean"] + z * found["std_error"]))

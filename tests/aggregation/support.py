"""Reports with known counts, written straight to the database as the submission API would store
them, with the survey's tallies (the dashboards' counters); and the reports read back the straightforward
way (one ORM query), what the exports read in blocks must equal."""

import itertools
from decimal import Decimal

import numpy as np

from surveys.aggregation.exports import reports as exports
from surveys.collection import builder
from surveys.collection.models import Report


def randomized_reports(survey, n, seed=0, truth=None):
    """{question: array}: index reports (n,) or unary bit rows (n, k), randomized by ldp."""
    rng = np.random.default_rng(seed)
    reports = {}
    for question in survey.ordered_questions():
        mechanism = question.mechanism()
        p = (truth or {}).get(question.order)
        values = rng.choice(mechanism.k, size=n, p=p)
        reports[question] = mechanism.randomize(values, rng)
    return reports


def store(survey, reports):
    """Write {question: array} as len(array) responses, as the submission API stores them (unary
    bit rows as bitmasks), with their tallies; returns the responses."""
    return builder.write_responses(survey, {question.pk: question.mechanism().encode_many(values)
                                            for question, values in reports.items()})


def add_responses(survey, n, seed=0, truth=None):
    """Store n randomized responses; returns {question: array} to count from independently."""
    reports = randomized_reports(survey, n, seed, truth)
    store(survey, reports)
    return reports


def counts(question, values):
    """The counts ldp debiases: reports per option, or 1-bits per option."""
    return question.mechanism().counts(values)


def reference_responses(survey, current):
    """(id, day, version, {question key: decoded report}) per response with a report, in id order, reports
    in question-id order; a number sent as given as its value lo + step * i (`given`)."""
    questions = {q.id: q for q in current}
    rows = (Report.objects.filter(response__survey=survey).order_by("response_id", "question_id")
            .values_list("response_id", "response__submitted_on", "response__mechanism_version", "question_id",
                         "value"))
    for (response_id, day, version), group in itertools.groupby(rows, key=lambda row: row[:3]):
        reports = {questions[q].key: given(questions[q], value) for *_, q, value in group}
        yield str(response_id), day, version, reports


def given(question, value):
    """A stored report as the exports carry it: decoded, or a number sent as given as its value lo + step * i."""
    if question.mean and not question.mechanism.randomized:
        d = question.mechanism.describe()
        found = Decimal(d["lo"]) + Decimal(d["step"]) * value
        return int(found) if found == int(found) else float(found)
    return question.mechanism.decode(value)


def reference_rows(survey, current):
    """Each response's cells in the labelled files' column order, from `reference_responses`."""
    for response_id, day, version, reports in reference_responses(survey, current):
        cells = [response_id, day, version]
        for q in current:
            value = reports.get(q.key)
            cells += value if isinstance(value, list) else [value] * len(exports.columns(q))
        yield cells

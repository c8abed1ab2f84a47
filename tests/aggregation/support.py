"""Reports with known counts, written straight to the database as the submission API would store
them, with the survey's tallies (the dashboards' counters)."""

import numpy as np

from surveys.collection import builder


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

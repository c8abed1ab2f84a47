"""Reports with known counts, written straight to the database (as the submission API would),
followed by a rebuild of the survey's tallies (the dashboards' counters) from them."""

import uuid

import numpy as np
from django.utils import timezone

from surveys.collection import plan, tallies
from surveys.collection.models import Report, Response


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
    """Write {question: array} as len(array) responses; returns the responses."""
    n = len(next(iter(reports.values()))) if reports else 0
    version = plan.of(survey).version
    responses = Response.objects.bulk_create(
        Response(survey=survey, mechanism_version=version, submitted_on=timezone.now().date(),
                 submission_key=uuid.uuid4()) for _ in range(n))
    rows = []
    for question, values in reports.items():
        for response, value in zip(responses, values, strict=True):
            rows.append(Report(response=response, question=question, value=_stored(value)))
    Report.objects.bulk_create(rows, batch_size=5000)
    tallies.rebuild(survey)
    return responses


def add_responses(survey, n, seed=0, truth=None):
    """Store n randomized responses; returns {question: array} to count from independently."""
    reports = randomized_reports(survey, n, seed, truth)
    store(survey, reports)
    return reports


def counts(question, values):
    """The counts ldp debiases: reports per option, or 1-bits per option."""
    return question.mechanism().counts(values)


def _stored(value):
    """Unary bit rows become the stored bitmask (bit j = option j)."""
    value = np.asarray(value)
    if value.ndim == 0:
        return int(value)
    return int(sum(int(bit) << j for j, bit in enumerate(value)))

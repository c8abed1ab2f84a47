"""Migration 0009: responses stamped with the digest of before it covered the sampler integers
are re-stamped with the current version of the same configuration; others are left alone."""

import importlib

from django.apps import apps

from surveys.aggregation import results
from surveys.collection import plan
from surveys.collection.models import Response
from tests.aggregation.support import add_responses

restamp = importlib.import_module("surveys.collection.migrations.0009_restamp_versions_with_sampler_integers").restamp


def test_it_restamps_the_responses_of_before_and_leaves_another_configurations_alone(survey):
    add_responses(survey, 30, seed=1)
    rows = plan.rows_of([survey.pk])[survey.pk]
    old, current = plan.version_before_samplers(rows), plan.of(survey).version
    assert old != current
    stamped = list(Response.objects.filter(survey=survey).values_list("pk", flat=True))
    Response.objects.filter(pk__in=stamped[:20]).update(mechanism_version=old)
    Response.objects.filter(pk__in=stamped[20:25]).update(mechanism_version="0123456789abcdef")
    restamp(apps, None)
    versions = dict(Response.objects.filter(survey=survey).values_list("pk", "mechanism_version"))
    assert [versions[pk] for pk in stamped] == [current] * 20 + ["0123456789abcdef"] * 5 + [current] * 5


def test_after_it_the_results_count_the_responses_of_before(survey):
    add_responses(survey, 10, seed=2)
    old = plan.version_before_samplers(plan.rows_of([survey.pk])[survey.pk])
    Response.objects.filter(survey=survey).update(mechanism_version=old)
    restamp(apps, None)
    assert results.survey_results(survey).questions[0].n == 10

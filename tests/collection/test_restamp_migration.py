"""Migration 0009: responses stamped with the digest of before it covered the sampler integers
are re-stamped with the current version of the same configuration; others are left alone. Its
digests are a frozen copy of that release's plan, which still gives today's version of every kind."""

import importlib

import pytest
from django.apps import apps

from surveys.aggregation.results import service as results
from surveys.collection import plan
from surveys.collection.models import Response
from tests.aggregation.support import add_responses

migration = importlib.import_module("surveys.collection.migrations.0009_restamp_versions_with_sampler_integers")
restamp = migration.restamp


@pytest.mark.parametrize("name", ["survey", "kinds_survey", "every_mechanism_survey"])
def test_its_new_version_is_the_plans_for_every_kind_and_mechanism(request, db, name):
    survey = request.getfixturevalue(name)
    old, new = migration.versions(apps, survey.pk)
    assert new == plan.of(survey).version and old != new


def test_it_restamps_the_responses_of_before_and_leaves_another_configurations_alone(survey):
    add_responses(survey, 30, seed=1)
    old, current = migration.versions(apps, survey.pk)[0], plan.of(survey).version
    assert old != current
    stamped = list(Response.objects.filter(survey=survey).values_list("pk", flat=True))
    Response.objects.filter(pk__in=stamped[:20]).update(mechanism_version=old)
    Response.objects.filter(pk__in=stamped[20:25]).update(mechanism_version="0123456789abcdef")
    restamp(apps, None)
    versions = dict(Response.objects.filter(survey=survey).values_list("pk", "mechanism_version"))
    assert [versions[pk] for pk in stamped] == [current] * 20 + ["0123456789abcdef"] * 5 + [current] * 5


def test_after_it_the_results_count_the_responses_of_before(survey):
    add_responses(survey, 10, seed=2)
    old = migration.versions(apps, survey.pk)[0]
    Response.objects.filter(survey=survey).update(mechanism_version=old)
    restamp(apps, None)
    assert results.survey_results(survey).questions[0].n == 10


def test_a_configuration_that_cannot_be_read_is_left_alone(survey):
    add_responses(survey, 5, seed=3)
    survey.questions.filter(order=2).update(epsilon=50.0)  # no mechanism takes it
    Response.objects.filter(survey=survey).update(mechanism_version="0123456789abcdef")
    with pytest.raises(migration.Unreadable):
        migration.versions(apps, survey.pk)
    restamp(apps, None)  # skips it
    assert set(Response.objects.filter(survey=survey).values_list("mechanism_version", flat=True)) == {
        "0123456789abcdef"}

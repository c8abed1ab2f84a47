"""Results trust the mechanism version (issue 14, item 6): after a QuerySet.update of a mechanism (which
skips Model.save's freezing), every results reader refuses with 409 and names the stale versions, in
constant time: two index seeks, whatever the number of responses."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from surveys.aggregation.results import service as results
from surveys.aggregation.results import versions
from surveys.collection import plan
from surveys.collection.models import Question
from tests.aggregation.support import add_responses


@pytest.fixture
def changed_after_reports(survey):
    """The shared survey with 40 responses, then its k-RR question's epsilon changed by QuerySet.update."""
    add_responses(survey, 40, seed=3)
    old = plan.of(survey).version
    Question.objects.filter(survey=survey, mechanism_name="krr").update(epsilon=2.0)
    assert plan.of(survey).version != old
    return survey, old


def test_results_refuse_reports_made_with_another_mechanism_version(changed_after_reports):
    survey, old = changed_after_reports
    with pytest.raises(results.Unavailable) as raised:
        results.survey_results(survey)
    assert f"40 with version {old}" in raised.value.reason


@pytest.mark.parametrize("name, query", [
    ("aggregation:api-estimates", ""),
    ("aggregation:dashboard", ""),
    ("aggregation:export-estimates", ""),
    ("aggregation:api-crosstab", "?a={a}&b={b}"),
])
def test_every_results_reader_answers_409_naming_the_stale_version(client, owner, changed_after_reports, name, query):
    survey, old = changed_after_reports
    a, b = survey.ordered_questions()[:2]
    client.force_login(owner)
    response = client.get(reverse(name, args=[survey.slug]) + query.format(a=a.pk, b=b.pk))
    assert response.status_code == 409
    assert old in response.content.decode()


def test_results_of_an_unchanged_survey_are_served(client, owner, survey):
    add_responses(survey, 40, seed=3)
    assert versions.stale_versions(survey, plan.of(survey)) == {}
    client.force_login(owner)
    assert client.get(reverse("aggregation:api-estimates", args=[survey.slug])).status_code == 200


def test_the_check_is_two_index_seeks_whatever_the_number_of_responses(survey):
    add_responses(survey, 40, seed=3)
    current = plan.of(survey)
    with CaptureQueriesContext(connection) as queries:
        versions.stale_versions(survey, current)
    assert len(queries) == 2
    if connection.vendor == "sqlite":  # the executed SQL, with its parameters quoted in
        for query in queries:
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN QUERY PLAN " + query["sql"])
                steps = " ".join(str(row[-1]) for row in cursor.fetchall())
            assert "SEARCH" in steps and "response_survey_version" in steps and "SCAN" not in steps, steps

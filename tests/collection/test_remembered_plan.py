"""The plan of a wave whose questions remember their randomization: every reader gets both layers composed
(`ldp.mechanisms.remembered.Composed`) from the same one query, the version adds the permanent layer (no other
question's version
changes), and what the browser gets stays the instantaneous layer, its sampler and the total it checks."""

import hashlib
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import ldp
from ldp.mechanisms.remembered import Composed
from surveys.collection import plan
from surveys.collection.models import Series, Survey
from surveys.collection.serializers import MechanismSerializer
from tests.aggregation.series_support import layers, monthly


@pytest.fixture
def wave(owner) -> Survey:
    """Wave 1 of a series that remembers: q1 q-RR 0.5 over a permanent 0.8, q2 k-RR epsilon 1 over a permanent 3,
    q3 a multi-select without a permanent layer."""
    return monthly(owner, waves=1)[0]


def digest(survey, mechanisms) -> str:
    """The version as the models give it, each question's mechanism's dict and sampler as given."""
    definition = [[q.pk, q.kind, mechanism.to_dict(), [o.label for o in q.ordered_options()],
                   {"sampler": mechanism.sampler()}] for q, mechanism in zip(survey.ordered_questions(), mechanisms,
                                                                              strict=True)]
    return hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]


def test_a_remembered_question_is_read_through_both_layers_and_its_version_adds_the_permanent_layer(wave):
    found = plan.of(wave)
    remembered = layers(wave)
    expected = [Composed(remembered[1]), Composed(remembered[2]), wave.ordered_questions()[2].mechanism()]
    assert found.mechanisms == expected
    assert found.version == digest(wave, expected)
    assert found.version != digest(wave, [q.mechanism() for q in wave.ordered_questions()])


def test_the_plan_of_a_remembering_wave_is_still_one_query(wave):
    plan.build.cache_clear()
    with CaptureQueriesContext(connection) as queries:
        plan.of(wave)
    assert len(queries) == 1
    assert plan.published(wave.slug)[1] == plan.of(wave)


@pytest.mark.parametrize("where", ["a series that does not remember", "no series"])
def test_a_permanent_layer_outside_a_remembering_series_changes_neither_mechanism_nor_version(wave, where):
    if where == "no series":
        Survey.objects.filter(pk=wave.pk).update(series=None, wave=None)
    else:
        Series.objects.filter(pk=wave.series_id).update(remembered=False)
    wave.refresh_from_db()
    instant = [q.mechanism() for q in wave.ordered_questions()]
    assert wave.ordered_questions()[0].permanent_q is not None
    assert plan.of(wave).mechanisms == instant
    assert plan.of(wave).version == digest(wave, instant)


def test_the_browser_gets_the_instantaneous_layer_and_its_total(client, wave):
    body = client.get(f"/api/v1/surveys/{wave.slug}/").json()
    instant = [q.mechanism() for q in wave.ordered_questions()]
    assert [q["mechanism"] for q in body["questions"]] == [
        json.loads(json.dumps(MechanismSerializer(m).data)) for m in instant]
    assert body["version"] == plan.of(wave).version
    assert body["epsilon_total"] == plan.of(wave).epsilon_total == ldp.survey_epsilon(instant)
    assert ldp.survey_epsilon(plan.of(wave).mechanisms) < ldp.survey_epsilon(instant)  # one wave's composed loss

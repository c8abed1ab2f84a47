"""A survey's plan, which submissions, tallies, results and exports all read: the same version and
mechanisms as the models give, read in one query, and never stale (it is memoized on the rows
themselves)."""

import hashlib
import json
from decimal import Decimal

from django.db import connection
from django.test.utils import CaptureQueriesContext

import ldp
from surveys.collection import plan, submission
from surveys.collection.models import Question
from tests.factories import valid_payload


def version_from_models(survey) -> str:
    """The digest from the models: parameters, labels and the sampler's integers themselves."""
    definition = [[q.pk, q.kind, q.mechanism().to_dict(), [o.label for o in q.ordered_options()],
                   {"sampler": q.mechanism().sampler()}] for q in survey.ordered_questions()]
    return hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]


def test_it_gives_the_models_version_and_mechanisms_in_question_order(survey):
    found = plan.of(survey)
    assert found.version == version_from_models(survey)
    assert [(q.id, q.order, q.text, q.kind, q.options, q.mechanism) for q in found] == [
        (q.pk, q.order, q.text, q.kind, tuple(q.labels()), q.mechanism()) for q in survey.ordered_questions()]


def test_it_reads_several_surveys_in_one_query_and_reports_an_unreadable_one(survey):
    from surveys.collection.models import Survey

    broken = Survey.objects.create(slug="broken", title="Broken")
    Question.objects.create(survey=broken, order=1, text="?", kind="yes_no", mechanism_name="bitflip", epsilon=99)
    with CaptureQueriesContext(connection) as queries:
        found = plan.of_many([survey.pk, broken.pk])
    assert len(queries.captured_queries) == 1
    assert found[survey.pk] == plan.of(survey)
    assert isinstance(found[broken.pk], plan.Unavailable) and "question 1" in found[broken.pk].reason


def test_it_reads_a_six_decimal_q_exactly(survey):
    question = survey.questions.get(order=1)
    question.q = Decimal("0.123457")
    question.save()
    first = plan.of(survey).questions[0]
    pk, mechanism = first.id, first.mechanism
    assert pk == question.pk and mechanism == Question.objects.get(pk=pk).mechanism()
    assert mechanism.to_dict()["q"] == "0.123457"


def test_an_edit_gives_a_new_plan_at_once(survey):
    before = plan.of(survey)
    question = survey.questions.get(order=2)
    question.epsilon = 2.5
    question.save()
    after = plan.of(survey)
    assert after.version != before.version and after.questions[1].mechanism.epsilon == 2.5


def test_a_survey_without_questions_has_an_empty_plan(survey):
    Question.objects.filter(survey=survey).delete()
    assert plan.of(survey).questions == () and plan.of(survey).epsilon_total == 0


def test_a_submission_reads_the_survey_in_one_query_and_writes_in_four_or_on_postgresql_one(survey):
    submission.submit(survey, valid_payload(survey))
    payload = valid_payload(survey)
    with CaptureQueriesContext(connection) as queries:
        assert submission.submit(survey, payload).created
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    statements = [s for s in statements if s not in ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")]
    # SQLite: the response, its reports, its tallies, its cells of the watched pairs (pair_tallies)
    writes = ["WITH"] if connection.vendor == "postgresql" else ["INSERT", "INSERT", "INSERT", "WITH"]
    assert statements == ["SELECT", *writes]


def test_published_reads_the_survey_as_the_orm_does_and_its_plan_in_one_query(survey):
    from datetime import UTC, datetime

    from surveys.collection.models import Survey

    Survey.objects.filter(pk=survey.pk).update(opens_at=datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC))
    orm = Survey.objects.get(pk=survey.pk)
    with CaptureQueriesContext(connection) as queries:
        found, found_plan = plan.published("health")
    assert len(queries.captured_queries) == 1
    names = [field.attname for field in Survey._meta.concrete_fields]
    assert [getattr(found, name) for name in names] == [getattr(orm, name) for name in names]
    assert found.opens_at.tzinfo is not None and not found._state.adding
    assert found_plan == plan.of(survey)


def test_published_finds_a_survey_without_questions_but_never_a_draft(survey):
    from surveys.collection.models import Survey

    Question.objects.filter(survey=survey).delete()
    found, found_plan = plan.published("health")
    assert found.pk == survey.pk and found_plan.questions == ()
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    assert plan.published("health") is None and plan.published("nope") is None


def test_the_version_covers_the_samplers_integers_not_only_the_parameters(survey, monkeypatch):
    before = plan.of(survey).version
    plan.build.cache_clear()
    original = ldp.KaryRR.sampler

    def rounded_otherwise(self):  # a release that rounds the same epsilon to other integers
        found = dict(original(self))
        found["keep"] -= 1
        found["modulus"] -= 1
        return found

    monkeypatch.setattr(ldp.KaryRR, "sampler", rounded_otherwise)
    after = plan.of(survey)
    assert after.questions[2].mechanism.to_dict() == Question.objects.get(survey=survey, order=3).mechanism().to_dict()
    assert after.version != before
    plan.build.cache_clear()


def test_the_version_of_an_unchanged_survey_is_the_same_on_every_request(survey, client):
    first = client.get(f"/api/v1/surveys/{survey.slug}/").json()["version"]
    plan.build.cache_clear()
    plan._survey_values.cache_clear()
    second = client.get(f"/api/v1/surveys/{survey.slug}/").json()["version"]
    assert first == second == plan.of(survey).version

"""The blueprint a submission is checked against: the same version and mechanisms as the
models give, read in one query, and never stale (it is memoized on the rows themselves)."""

import hashlib
import json
from decimal import Decimal

from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys.collection import blueprint, submission
from surveys.collection.models import Question
from tests.factories import valid_payload


def version_from_models(survey) -> str:
    """The digest as defined before the blueprint existed: what stored responses carry."""
    definition = [[q.pk, q.kind, q.mechanism().to_dict(), [o.label for o in q.ordered_options()]]
                  for q in survey.ordered_questions()]
    return hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]


def test_it_gives_the_models_version_and_mechanisms_in_question_order(survey):
    plan = blueprint.of(survey.pk)
    assert plan.version == version_from_models(survey)
    assert plan.pairs == tuple((q.pk, q.mechanism()) for q in survey.ordered_questions())


def test_it_reads_a_six_decimal_q_exactly(survey):
    question = survey.questions.get(order=1)
    question.q = Decimal("0.123457")
    question.save()
    pk, mechanism = blueprint.of(survey.pk).pairs[0]
    assert pk == question.pk and mechanism == Question.objects.get(pk=pk).mechanism()
    assert mechanism.to_dict()["q"] == "0.123457"


def test_an_edit_gives_a_new_blueprint_at_once(survey):
    before = blueprint.of(survey.pk)
    question = survey.questions.get(order=2)
    question.epsilon = 2.5
    question.save()
    after = blueprint.of(survey.pk)
    assert after.version != before.version and after.pairs[1][1].epsilon == 2.5


def test_a_survey_without_questions_has_an_empty_blueprint(survey):
    Question.objects.filter(survey=survey).delete()
    assert blueprint.of(survey.pk).pairs == ()


def test_a_submission_reads_the_survey_in_one_query_and_writes_in_three_or_on_postgresql_one(survey):
    submission.submit(survey, valid_payload(survey))
    payload = valid_payload(survey)
    with CaptureQueriesContext(connection) as queries:
        assert submission.submit(survey, payload).created
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    statements = [s for s in statements if s not in ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")]
    writes = ["WITH"] if connection.vendor == "postgresql" else ["INSERT", "INSERT", "INSERT"]
    assert statements == ["SELECT", *writes]

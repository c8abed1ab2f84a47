"""A survey's plan, which submissions, tallies, results and exports all read: the same version and
mechanisms as the models give, read in one query, and never stale (it is memoized on the rows
themselves)."""

import hashlib
import json
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import ldp
from surveys.collection import plan, submission
from surveys.collection.models import Option, Question
from surveys.collection.scales import Scale
from tests.collection.helpers import question
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


def test_a_submission_reads_the_survey_in_one_query_and_writes_in_five_or_on_postgresql_one(survey):
    submission.submit(survey, valid_payload(survey))
    payload = valid_payload(survey)
    with CaptureQueriesContext(connection) as queries:
        assert submission.submit(survey, payload).created
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    statements = [s for s in statements if s not in ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")]
    # SQLite: the response, its reports, its tallies, its cells of the watched pairs (pair_tallies), its values by
    # the watched cells (cell_tallies)
    writes = ["WITH"] if connection.vendor == "postgresql" else ["INSERT", "INSERT", "INSERT", "WITH", "WITH"]
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


# Numeric and ordinal questions: each question's scale, bins and scores, read with the rest in one query;
# a version that covers them; refused (409) when stored bins cannot be read.
D = Decimal


def test_it_reads_each_questions_scale_bins_and_scores_in_one_query(kinds_survey):
    with CaptureQueriesContext(connection) as queries:
        multi, onebit, dlaplace, ages, gamble = plan.of(kinds_survey)
    assert len(queries.captured_queries) == 1
    assert (onebit.scale, dlaplace.scale) == (Scale(D(0), D(100), D(1)), Scale(D(0), D(10), D("0.5")))
    assert ages.edges == (D(0), D(18), D(35), D(65)) and ages.edge_indexes == [0, 18, 35, 65]
    assert gamble.scores == (D(1), D(2), D(3), None) and multi.scores == ()
    assert [q.mean for q in (multi, onebit, dlaplace, ages, gamble)] == [False, True, True, False, False]
    assert [q.histogram for q in (multi, onebit, dlaplace, ages, gamble)] == [False, False, False, True, False]
    assert onebit.options == () and ages.options == ("0 to 17", "18 to 34", "35 to 64", "65 to 120")


def test_only_a_numeric_mean_cannot_be_related(kinds_survey):
    assert [q.relatable for q in plan.of(kinds_survey)] == [True, False, False, True, True]


@pytest.mark.parametrize("order, change", [
    (4, lambda q: Option.objects.filter(question=q, order=1).update(lower=D(20))),  # a bin edge
    (5, lambda q: Option.objects.filter(question=q, order=0).update(score=D(0))),  # a score
    (2, lambda q: Question.objects.filter(pk=q.pk).update(hi=D(200))),  # the scale
    (1, lambda q: Question.objects.filter(pk=q.pk).update(at_most=3)),  # the at-most limit
])
def test_the_version_changes_with_a_bin_edge_a_score_a_scale_or_a_limit(kinds_survey, order, change):
    before = plan.of(kinds_survey).version
    change(question(kinds_survey, order))
    assert plan.of(kinds_survey).version != before


def test_decimals_read_the_same_however_the_database_writes_them(kinds_survey):
    Question.objects.filter(pk=question(kinds_survey, 3).pk).update(hi=D("10.000000"), step=D("0.500000"))
    assert plan.of(kinds_survey).questions[2].mechanism.to_dict()["step"] == "0.5"


def test_bins_edited_out_of_order_make_the_survey_unavailable_not_a_wrong_plan(kinds_survey):
    ages = question(kinds_survey, 4)
    Option.objects.filter(question=ages, order=1).update(lower=D(40))  # 0, 40, 35, 65: swapped edges
    with pytest.raises(plan.Unavailable, match="question 4: The lower edges must increase"):
        plan.of(kinds_survey)


def test_a_numeric_histogram_without_bins_is_unavailable(kinds_survey):
    Option.objects.filter(question=question(kinds_survey, 4)).delete()
    with pytest.raises(plan.Unavailable, match="at least two bins"):
        plan.of(kinds_survey)

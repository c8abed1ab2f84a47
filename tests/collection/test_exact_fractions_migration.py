"""Migration 0020: q and permanent_q become exact text. Every existing survey keeps its parameters, the integers
its browsers sample and its version (so its stored responses keep counting); backwards, a q no six-place
decimal holds is refused rather than rounded."""

import datetime
import importlib
import uuid
from decimal import Decimal
from fractions import Fraction

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.exceptions import IrreversibleError
from django.db.migrations.executor import MigrationExecutor

import ldp
from surveys.aggregation.results import versions
from surveys.collection import plan
from surveys.collection.models import Question, Survey

BEFORE = ("collection", "0019_planned_size")
restamp = importlib.import_module("surveys.collection.migrations.0009_restamp_versions_with_sampler_integers")
# q as the six-place column held them: the forced-response design's 2/3 as it had to be typed, and others.
QS = [Decimal("0.500000"), Decimal("0.666667"), Decimal("0.333333"), Decimal("0.100000"), Decimal("0.999000")]
PERMANENT = Decimal("0.875000")


def old_apps():
    executor = MigrationExecutor(connection)
    return executor.loader.project_state([BEFORE]).apps


def stored_texts(survey_id):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT q, permanent_q FROM {Question._meta.db_table} WHERE survey_id = %s ORDER BY "
                       f"{connection.ops.quote_name('order')}", [survey_id])
        return cursor.fetchall()


def make_old_surveys(apps):
    """Two surveys in the schema of before: one with a q per question and a response stamped with its version,
    one a wave of a series that remembers, with a permanent layer."""
    Survey, Question, Option = (apps.get_model("collection", name) for name in ("Survey", "Question", "Option"))
    Series, Response = apps.get_model("collection", "Series"), apps.get_model("collection", "Response")
    survey = Survey.objects.create(slug="old", title="Old", status="open", epsilon_budget=50.0)
    for order, q in enumerate(QS, start=1):
        Question.objects.create(survey=survey, order=order, text=f"Q{order}", kind="yes_no", mechanism_name="qrr",
                                q=q, lineage=uuid.uuid4())
    choice = Question.objects.create(survey=survey, order=len(QS) + 1, text="Choice", kind="single_choice",
                                     mechanism_name="krr", epsilon=1.0, lineage=uuid.uuid4())
    for order, label in enumerate("ABC"):
        Option.objects.create(question=choice, order=order, label=label)
    version = restamp.versions(apps, survey.pk)[1]  # the plan's version in this release
    Response.objects.create(survey=survey, mechanism_version=version, submitted_on=datetime.date(2026, 1, 1),
                            submission_key=uuid.uuid4())
    series = Series.objects.create(title="Panel", slug="panel", remembered=True)
    wave = Survey.objects.create(slug="wave", title="Wave", series=series, wave=1, epsilon_budget=50.0)
    Question.objects.create(survey=wave, order=1, text="Remembered", kind="yes_no", mechanism_name="qrr",
                            q=Decimal("0.500000"), permanent_q=PERMANENT, lineage=uuid.uuid4())
    # A draft edited outside the admin: a q no mechanism takes (epsilon below the least), whose cast text differs
    # from the exact text on both databases ("0.000010" on PostgreSQL, "1.0e-05" on SQLite).
    odd = Survey.objects.create(slug="odd", title="Odd", epsilon_budget=50.0)
    Question.objects.create(survey=odd, order=1, text="Odd", kind="yes_no", mechanism_name="qrr",
                            q=Decimal("0.000010"), lineage=uuid.uuid4())
    return survey.pk, wave.pk, version


def old_sampler(q):
    """What a browser sampled with before: the mechanism built from the six-place decimal."""
    return ldp.QRandomizedResponse(Fraction(str(q.normalize()))).sampler()


@pytest.fixture
def before(transactional_db):
    call_command("migrate", *BEFORE, verbosity=0, interactive=False)
    yield old_apps()
    call_command("migrate", verbosity=0, interactive=False)  # leave the database as every other test expects it


def test_existing_surveys_keep_their_parameters_samplers_and_versions(before):
    survey_id, wave_id, version = make_old_surveys(before)
    call_command("migrate", verbosity=0, interactive=False)

    current = plan.of(survey_id)
    assert current.version == version
    assert stored_texts(survey_id) == [("0.5", None), ("0.666667", None), ("0.333333", None), ("0.1", None),
                                       ("0.999", None), (None, None)]
    assert stored_texts(wave_id) == [("0.5", "0.875")]
    assert stored_texts(Survey.objects.get(slug="odd").pk) == [("0.00001", None)]
    assert list(Question.objects.filter(survey_id=survey_id).order_by("order").values_list("q", flat=True)) == [
        *(Fraction(q) for q in QS), None]
    assert [question.mechanism.sampler() for question in current][:len(QS)] == [old_sampler(q) for q in QS]
    assert current.questions[1].mechanism.sampler() == {"kind": "grr", "k": 2, "modulus": 2000000,
                                                         "keep": 1666667, "other": 333333}
    assert versions.stale_versions(Survey.objects.get(pk=survey_id), current) == {}  # its response still counts
    layers = plan.of(wave_id).questions[0].mechanism.layers
    assert (layers.permanent.sampler(), layers.instant.sampler()) == (old_sampler(PERMANENT),
                                                                        old_sampler(Decimal("0.5")))


def test_backwards_a_decimal_q_goes_back_and_a_fraction_is_refused(before):
    survey_id, _wave_id, _version = make_old_surveys(before)
    call_command("migrate", verbosity=0, interactive=False)
    call_command("migrate", *BEFORE, verbosity=0, interactive=False)
    assert list(before.get_model("collection", "Question").objects.filter(survey_id=survey_id).order_by("order")
                .values_list("q", flat=True)) == [*QS, None]
    call_command("migrate", verbosity=0, interactive=False)
    Question.objects.filter(survey_id=survey_id, order=2).update(q=Fraction(2, 3))
    with pytest.raises(IrreversibleError, match="2/3 has no six-place decimal"):
        call_command("migrate", *BEFORE, verbosity=0, interactive=False)
    Question.objects.filter(survey_id=survey_id, order=2).update(q=Fraction(1, 2))

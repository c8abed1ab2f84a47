"""Nothing stored puts the reports in arrival order: not their keys, not SQLite's row order, and on
PostgreSQL not the heap's order once `reorder_storage` has run (before it, it does: the check can
fail). Migration 0010 re-keys the rows stored before random keys.

Each check is a rank correlation between arrival and stored order over N responses: about
N(0, 1/(N-1)) when the order is random, 1 when it is arrival order; |rho| < 5/sqrt(N-1) is
a false alarm with probability about 6e-7."""

import importlib
import math

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from scipy.stats import spearmanr

from surveys.collection import arrival_order, submission
from surveys.collection.models import Report, Response
from surveys.collection.models.keys import KEY_BITS, PER_RESPONSE_BITS, report_keys
from tests.factories import valid_payload

rekey = importlib.import_module("surveys.collection.migrations.0010_random_report_keys").rekey

N = 200
BOUND = 5 / math.sqrt(N - 1)
FIRST = 1


def arrive(survey, n=N):
    """n responses submitted one after another: their ids in arrival order."""
    return [str(submission.submit(survey, valid_payload(survey)).response_id) for _ in range(n)]


def rank_correlation(arrived, stored_order):
    """Spearman's rho between arrival and the order in which `stored_order` lists the same responses."""
    place = {response: i for i, response in enumerate(stored_order)}
    return spearmanr(range(len(arrived)), [place[response] for response in arrived]).statistic


def first_question_reports(survey, order_by):
    question = survey.questions.get(order=FIRST).pk
    table = connection.ops.quote_name(Report._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT response_id FROM {table} WHERE question_id = %s ORDER BY {order_by}", [question])
        return [str(Response._meta.pk.to_python(row[0])) for row in cursor.fetchall()]


def responses_in(order_by):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {connection.ops.quote_name(Response._meta.db_table)} ORDER BY {order_by}")
        return [str(Response._meta.pk.to_python(row[0])) for row in cursor.fetchall()]


@pytest.mark.slow
def test_report_keys_carry_no_arrival_order(survey):
    arrived = arrive(survey)
    assert abs(rank_correlation(arrived, first_question_reports(survey, "id"))) < BOUND
    assert all(key >= 1 << KEY_BITS for key in Report.objects.values_list("pk", flat=True))


@pytest.mark.slow
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's rowids")
def test_on_sqlite_rows_are_stored_in_random_order(survey):
    arrived = arrive(survey)
    with connection.cursor() as cursor:  # a report's key is its rowid: the table is stored in key order
        cursor.execute(f"SELECT count(*) FROM {Report._meta.db_table} WHERE rowid <> id")
        assert cursor.fetchone()[0] == 0
    assert abs(rank_correlation(arrived, responses_in("rowid"))) < BOUND
    assert abs(rank_correlation(arrived, first_question_reports(survey, "rowid"))) < BOUND


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's heap order")
def test_on_postgresql_reorder_storage_takes_arrival_order_out_of_the_heap(survey):
    # Fresh tables (TRUNCATE is transactional here: the test's rollback restores them), so that new rows are
    # appended as they come: the space of rows earlier tests rolled back, once vacuumed, would take them anywhere.
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {Report._meta.db_table}, {Response._meta.db_table} CASCADE")
    arrived = arrive(survey)
    assert rank_correlation(arrived, responses_in("ctid")) > 1 - BOUND  # appended as they came
    assert rank_correlation(arrived, first_question_reports(survey, "ctid")) > 1 - BOUND
    call_command("reorder_storage", verbosity=0)
    assert abs(rank_correlation(arrived, responses_in("ctid"))) < BOUND
    assert abs(rank_correlation(arrived, first_question_reports(survey, "ctid"))) < BOUND


@pytest.mark.slow
def test_the_migration_rekeys_the_reports_of_before_and_keeps_their_contents(survey):
    arrived = arrive(survey)
    before = set(Report.objects.values_list("response", "question", "value"))
    table = connection.ops.quote_name(Report._meta.db_table)
    place = {response: i for i, response in enumerate(arrived)}
    rows = sorted(Report.objects.values_list("response", "question", "pk"), key=lambda r: (place[str(r[0])], r[1]))
    with connection.cursor() as cursor:  # keys as an auto-increment gave them, in arrival order
        cursor.executemany(f"UPDATE {table} SET id = %s WHERE id = %s",
                           [(number, key) for number, (_, _, key) in enumerate(rows, start=1)])
    assert rank_correlation(arrived, first_question_reports(survey, "id")) == 1
    rekey(apps, None)
    assert set(Report.objects.values_list("response", "question", "value")) == before
    assert all(key >= 1 << KEY_BITS for key in Report.objects.values_list("pk", flat=True))
    assert abs(rank_correlation(arrived, first_question_reports(survey, "id"))) < BOUND
    if connection.vendor == "postgresql":
        assert abs(rank_correlation(arrived, first_question_reports(survey, "ctid"))) < BOUND


def test_reorder_storage_keeps_every_row(transactional_db, survey):
    arrive(survey, 20)
    before = set(Report.objects.values_list("pk", "response", "question", "value"))
    call_command("reorder_storage", verbosity=0)
    assert set(Report.objects.values_list("pk", "response", "question", "value")) == before
    assert arrival_order.TABLES == (Response._meta.db_table, Report._meta.db_table)


def test_a_responses_report_keys_are_consecutive_from_a_random_base_above_the_old_keys():
    keys = report_keys(5)
    assert keys == list(range(keys[0], keys[0] + 5)) and keys[0] % (1 << PER_RESPONSE_BITS) == 0
    assert 1 << KEY_BITS <= keys[0] and keys[-1] < 1 << 63
    assert len({report_keys(1)[0] for _ in range(1000)}) == 1000
    with pytest.raises(ValueError, match="at most 65535"):
        report_keys(1 << PER_RESPONSE_BITS)

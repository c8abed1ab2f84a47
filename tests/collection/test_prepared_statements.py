"""surveys.collection.prepared_statements: on PostgreSQL a submission's two statements (the survey and its
plan; the one-statement write) are prepared once per connection and then reused; the query log
still shows them with their values; a refused write leaves the connection fit for the next
submission. Elsewhere the cursor is the ordinary one."""

import json
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys.collection import prepared_statements as prepared
from surveys.collection.models import Response
from tests.collection.helpers import stored
from tests.factories import valid_payload

postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL prepares statements")


def post(client, survey, body):
    return client.post(f"/api/v1/surveys/{survey.slug}/responses/", data=json.dumps(body),
                       content_type="application/json")


def prepared_statements() -> list[str]:
    """The first words of the statements this connection has prepared (this session's only)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        # Sorted by words: psycopg's names (_pg3_9, _pg3_10) do not sort in the order it made them.
        return sorted(" ".join(row[0].split()[:2]) for row in cursor.fetchall())


@postgresql_only
def test_on_postgresql_a_submission_prepares_its_two_statements_once_and_reuses_them(client, survey):
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")  # psycopg forgets its names too (it watches for this)
    for _ in range(3):
        assert post(client, survey, valid_payload(survey)).status_code == 201
    assert prepared_statements() == ["SELECT s.\"id\",", "WITH spent"]
    assert Response.objects.filter(survey=survey).count() == 3


@postgresql_only
def test_the_query_log_shows_the_prepared_write_with_its_values(client, survey):
    payload = valid_payload(survey)
    with CaptureQueriesContext(connection) as queries:
        assert post(client, survey, payload).status_code == 201
    # The test's transaction puts the write in a savepoint (SAVEPOINT, RELEASE): not the statements'.
    statements = [query["sql"] for query in queries.captured_queries
                  if query["sql"].split()[0] not in ("SAVEPOINT", "RELEASE")]
    assert [sql.split()[0] for sql in statements] == ["SELECT", "WITH"]
    assert f"'{payload['key'].replace('-', '')}'::uuid" in statements[1] and "$1" not in statements[1]
    assert f"'{survey.slug}'" in statements[0]


def test_after_a_refused_write_the_same_connection_stores_the_next_submission(client, survey):
    key = uuid.uuid4()
    assert post(client, survey, valid_payload(survey, key=key, values={3: 0})).status_code == 201
    # The key taken by other reports: the write fails in the database (unique key), then is refused.
    assert post(client, survey, valid_payload(survey, key=key, values={3: 1})).status_code == 409
    assert stored() == (1, 4)
    assert post(client, survey, valid_payload(survey)).status_code == 201
    assert stored() == (2, 8)


@pytest.mark.skipif(connection.vendor == "postgresql", reason="the ordinary cursor elsewhere")
def test_elsewhere_it_is_the_ordinary_cursor(db):
    with prepared.cursor() as cursor, connection.cursor() as ordinary:
        assert type(cursor) is type(ordinary) and type(cursor.cursor) is type(ordinary.cursor)


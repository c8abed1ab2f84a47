"""Small helpers shared by the collection tests."""

from contextlib import contextmanager

from django.db import connection

from surveys.collection.models import Report, Response


def question(survey, order):
    return survey.questions.get(order=order)


def qid(survey, order) -> str:
    """A question's key in a submission's `reports` object."""
    return str(question(survey, order).pk)


def stored() -> tuple[int, int]:
    """(responses, reports) in the database: what an error path must leave unchanged."""
    return Response.objects.count(), Report.objects.count()


@contextmanager
def failing_insert(model, when="true"):
    """A database trigger that aborts any INSERT into `model`'s table where `when` (an SQL
    condition on NEW) holds: a real failure in the middle of a write, on SQLite and PostgreSQL."""
    table = connection.ops.quote_name(model._meta.db_table)
    if connection.vendor == "postgresql":
        create = [
            "CREATE FUNCTION injected_failure() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'injected failure'; END $$",
            f"CREATE TRIGGER injected_failure BEFORE INSERT ON {table} FOR EACH ROW "
            f"WHEN ({when}) EXECUTE FUNCTION injected_failure()",
        ]
        drop = [f"DROP TRIGGER injected_failure ON {table}", "DROP FUNCTION injected_failure()"]
    else:
        create = [f"CREATE TRIGGER injected_failure BEFORE INSERT ON {table} WHEN ({when}) "
                  "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"]
        drop = ["DROP TRIGGER injected_failure"]
    with connection.cursor() as cursor:
        for sql in create:
            cursor.execute(sql)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            for sql in drop:
                cursor.execute(sql)

"""GET /healthz: 200 {"status": "ok"} with one trivial query, 503 when the database is unreachable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import OperationalError

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_healthz_answers_ok_with_one_query(client, django_assert_num_queries):
    with django_assert_num_queries(1):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]
    assert not response.cookies  # no session, no CSRF cookie


@pytest.mark.django_db
def test_healthz_is_read_only(client):
    assert client.post("/healthz").status_code == 405
    assert client.head("/healthz").status_code == 200


@pytest.mark.django_db
def test_healthz_answers_503_when_the_query_fails(client, monkeypatch):
    from django.db import connection

    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"


PROBE = """
import django
django.setup()
from django.test import Client
response = Client().get("/healthz")
print(response.status_code, response.content.decode())
"""


@pytest.mark.slow
@pytest.mark.parametrize("database_url", [
    "sqlite:////nonexistent-directory/for-healthz/db.sqlite3",
    "postgres://nobody:secret@127.0.0.1:1/nothing",  # nothing listens on port 1
])
def test_healthz_answers_503_when_the_database_is_unreachable(tmp_path, database_url):
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("DJANGO_") and key != "DATABASE_URL"}
    env.update(DJANGO_SETTINGS_MODULE="surveys.settings", DATABASE_URL=database_url,
               DJANGO_ALLOWED_HOSTS="testserver")
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("503 "), result.stdout + result.stderr

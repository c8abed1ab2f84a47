"""The API when its database is down: 503 in the API's error shape with Retry-After, never an
HTML 500 page, wherever the error is met (the view's queries, the session DRF reads to
authenticate, a middleware reading the user before the view), logged in one line and never
with the request's body. Any other error under /api/ is a 500 in the same shape (production).

Each case runs in a new interpreter against a database that really cannot be reached (a SQLite
file in a directory that does not exist; a PostgreSQL server on a port nothing listens on), with
the project's own logging configuration (pytest replaces the handlers' streams). A few seconds:
each interpreter sets Django up (about 1.5 s of CPU).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = {"DJANGO_ENV": "production", "DJANGO_SECRET_KEY": "a-long-random-test-secret-key-0123456789-abcdefgh",
              "DJANGO_ALLOWED_HOSTS": "testserver", "DJANGO_SECURE_SSL_REDIRECT": "false"}
DEVELOPMENT = {"DJANGO_ALLOWED_HOSTS": "testserver"}
UNREACHABLE = {
    "sqlite": "sqlite:////nonexistent-directory/for-the-outage/db.sqlite3",
    "postgresql": "postgres://nobody:secret@127.0.0.1:1/nothing",  # nothing listens on port 1
}
MARKER = "a-respondent-body-never-logged"

REQUESTS = """
import json, sys
import django
django.setup()
from django.conf import settings
from django.test import Client
from django.test.utils import override_settings


class EagerUser:
    # A middleware that reads the user (so the session) before the view.
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.user.is_authenticated
        return self.get_response(request)


class Broken:
    # A middleware that fails for another reason than the database.
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raise RuntimeError("not the database")


def answer(response):
    return [response.status_code, response["Content-Type"], response.get("Retry-After"),
            json.loads(response.content) if response["Content-Type"] == "application/json" else None]


browser = Client(raise_request_exception=False)
signed_in = Client(raise_request_exception=False)
signed_in.cookies["sessionid"] = "a" * 32
found = {
    "definition": answer(browser.get("/api/v1/surveys/health/?lang=en")),
    "submission": answer(browser.post("/api/v1/surveys/health/responses/", {"version": "THE_MARKER"},
                                      content_type="application/json")),
    "session": answer(signed_in.get("/api/v1/surveys/health/estimates/")),
}
if "eager" in sys.argv:
    with override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, "__main__.EagerUser"]):
        eager = Client(raise_request_exception=False)
        eager.cookies["sessionid"] = "a" * 32
        found["middleware"] = answer(eager.get("/api/v1/surveys/health/"))
    with override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, "__main__.Broken"]):
        broken = Client(raise_request_exception=False)
        found["other error"] = answer(broken.get("/api/v1/surveys/health/"))
        found["other error, a page"] = answer(broken.get("/results/"))
print(json.dumps(found))
""".replace("THE_MARKER", MARKER)

UNAVAILABLE = [503, "application/json", "30", {"error": {
    "code": "service_unavailable", "field": "request",
    "reason": "the service is unavailable for a moment; try again in 30 seconds"}}]


def run(tmp_path: Path, database_url: str, environment: dict[str, str], *args: str) -> tuple[dict, list[str]]:
    variables = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    variables.update(DJANGO_SETTINGS_MODULE="surveys.settings", DATABASE_URL=database_url,
                     DJANGO_STATIC_ROOT=str(tmp_path), **environment)
    result = subprocess.run([sys.executable, "-c", REQUESTS, *args], cwd=ROOT, env=variables, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert MARKER not in result.stderr
    return json.loads(result.stdout), result.stderr.splitlines()


@pytest.mark.parametrize("engine", UNREACHABLE)
def test_in_production_every_api_answer_is_a_503_in_the_error_shape_and_one_log_line(tmp_path, engine):
    found, logged = run(tmp_path, UNREACHABLE[engine], PRODUCTION, "eager")
    assert found == {**{case: UNAVAILABLE for case in ("definition", "submission", "session", "middleware")},
                     "other error": [500, "application/json", None, {"error": {
                         "code": "server_error", "field": "request", "reason": "internal server error"}}],
                     "other error, a page": [500, "text/html; charset=utf-8", None, None]}
    cause = {"sqlite": "OperationalError: unable to open database file",
             "postgresql": 'OperationalError: connection failed: connection to server at "127.0.0.1", port 1 failed: '
                           "Connection refused Is the server running on that host and accepting TCP/IP connections?"}
    # Django logs what no view handled (the middleware's) with its traceback, after these lines.
    assert logged[:logged.index("Traceback (most recent call last):")] == [
        f"database unavailable: {cause[engine]}", "Service Unavailable: /api/v1/surveys/health/",
        f"database unavailable: {cause[engine]}", "Service Unavailable: /api/v1/surveys/health/responses/",
        f"database unavailable: {cause[engine]}", "Service Unavailable: /api/v1/surveys/health/estimates/",
        f"database unavailable: {cause[engine]}", "Service Unavailable: /api/v1/surveys/health/",
    ]


def test_in_development_a_views_outage_is_a_503_too(tmp_path):
    # With DEBUG, Django's debug page answers what no view handled (the middleware case): not asked here.
    found, _ = run(tmp_path, UNREACHABLE["sqlite"], DEVELOPMENT)
    assert found == {case: UNAVAILABLE for case in ("definition", "submission", "session")}

"""What the logs get: a request with a Host the site does not serve is one line, not a traceback.

Run in a new interpreter with the project's own logging configuration (pytest replaces the
handlers' streams), in production and in development (where Django's own console handler
would print it too)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = {"DJANGO_ENV": "production", "DJANGO_SECRET_KEY": "a-long-random-test-secret-key-0123456789-abcdefgh",
              "DJANGO_ALLOWED_HOSTS": "survey.example.org", "DJANGO_SECURE_SSL_REDIRECT": "false"}

THREE_BAD_HOSTS = """
import django
django.setup()
from django.test import Client
browser = Client(raise_request_exception=False)
print([browser.get(path, HTTP_HOST="evil.example").status_code for path in ("/healthz", "/s/x/", "/admin/")])
"""


@pytest.mark.slow
@pytest.mark.parametrize("environment", [PRODUCTION, {}], ids=["production", "development"])
def test_a_bad_host_header_logs_one_line_without_a_traceback(tmp_path, environment):
    variables = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    variables.update(DJANGO_SETTINGS_MODULE="surveys.settings", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
                     DJANGO_STATIC_ROOT=str(tmp_path),
                     **environment)
    result = subprocess.run([sys.executable, "-c", THREE_BAD_HOSTS], cwd=ROOT, env=variables, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.stdout.strip() == "[400, 400, 400]", result.stderr
    lines = result.stderr.strip().splitlines()
    one_line = "Invalid HTTP_HOST header: 'evil.example'. You may need to add 'evil.example' to ALLOWED_HOSTS."
    assert lines == [one_line] * 3

"""Fixtures of the fuzz tests: the API's schema loaded from the WSGI app, in-process requests,
the server errors' tracebacks, and a survey that already has responses."""

import traceback
import uuid

import pytest
from django.conf import settings as django_settings
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from django.test.utils import override_settings

from surveys.collection import submission
from surveys.collection.models import Series, Survey
from tests.factories import valid_payload

from .checks import CSRF_TOKEN

# schemathesis' WSGI client sends `Host: localhost`.
HOST = "localhost"


class _KeepTestConnection:
    """Django closes "old" connections when a request starts and finishes; in process, that would
    close the test's own connection, in the middle of its transaction. Django's test client
    disconnects the same handlers around each request; schemathesis' WSGI client does not."""

    def __enter__(self):
        signals.request_started.disconnect(close_old_connections)
        signals.request_finished.disconnect(close_old_connections)

    def __exit__(self, *exc):
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture(scope="session")
def wsgi_app():
    return get_wsgi_application()


@pytest.fixture(scope="session")
def api_schema(wsgi_app):
    """The OpenAPI schema, as the app serves it at /api/v1/schema/."""
    import schemathesis

    with _KeepTestConnection(), override_settings(ALLOWED_HOSTS=[*django_settings.ALLOWED_HOSTS, HOST]):
        return schemathesis.openapi.from_wsgi("/api/v1/schema/", wsgi_app)


@pytest.fixture
def in_process(settings):
    """Requests through the WSGI app, inside the test's transaction."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, HOST]
    with _KeepTestConnection():
        yield


@pytest.fixture(autouse=True)
def no_rate_limit(settings):
    """Fuzzing posts hundreds of submissions from one address; the per-network limit (and its
    429) has tests of its own. Harmless where the setting does not exist."""
    settings.SUBMISSION_RATE = None


@pytest.fixture
def server_errors():
    """Tracebacks of the exceptions the app turned into 500s, for the failure message."""
    caught = []

    def record(sender, request=None, **kwargs):
        caught.append(traceback.format_exc())

    signals.got_request_exception.connect(record, weak=False)
    yield caught
    signals.got_request_exception.disconnect(record)


@pytest.fixture
def answered_survey(survey):
    """The open fixture survey with a few stored responses, so the estimates have data; wave 1 of a series, so
    its results across waves are reached too."""
    Survey.objects.filter(pk=survey.pk).update(series=Series.objects.create(title="Health"), wave=1)
    survey.refresh_from_db()
    for i in range(12):
        values = {1: i % 2, 2: (i // 2) % 2, 3: i % 3, 4: [int(j == i % 4) for j in range(4)]}
        submission.submit(survey, valid_payload(survey, key=uuid.UUID(int=i + 1), values=values))
    return survey


@pytest.fixture
def owner_session(owner):
    """The session cookie of the survey's researcher."""
    client = Client()
    client.force_login(owner)
    return client.cookies[django_settings.SESSION_COOKIE_NAME].value


@pytest.fixture
def respondent(db):
    """An anonymous client with the CSRF cookie a respondent's page would have set, and CSRF
    checked as in production (Django's test client skips the check unless asked)."""
    client = Client(enforce_csrf_checks=True)
    client.cookies["csrftoken"] = CSRF_TOKEN
    return client

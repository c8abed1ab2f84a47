"""Behind the shipped nginx configuration (docs/deploy/nginx-app.conf), connections that never
finish their headers no longer stall gunicorn's sync workers.

The app runs as documented (gunicorn's command in docs/operations.md and the README, production
settings) and Debian's nginx is started on a free port in a temporary directory, in the
foreground (tests/servers.py). Without nginx, a few stalled connections hold every worker: the
second test shows that, so the first one is known to test something.
"""

import http.client
import re
import shlex
import socket
import sys
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from tests.migrated_database import migrated_into
from tests.servers import HOST, free_port, nginx_server, running
from tests.test_deploy import production_env

pytestmark = pytest.mark.slow  # gunicorn and nginx in subprocesses
ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "docs" / "deploy"
DOCUMENTED = "gunicorn surveys.wsgi:application --bind 127.0.0.1:8000 --workers 5 --timeout 15"
WORKERS = 5
PUBLIC_HOST = "survey.example.org"


def test_the_command_tested_here_is_the_documented_one():
    for document in (ROOT / "README.md", ROOT / "docs" / "operations.md"):
        assert DOCUMENTED in document.read_text(), document
    assert re.search(r"^\s*include \S*docs/deploy/nginx-app\.conf;", (DEPLOY / "nginx-site.conf").read_text(), re.M)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The app under gunicorn, run with the documented command on a free port; yields the port."""
    directory = tmp_path_factory.mktemp("gunicorn")
    port = free_port()
    command = [sys.executable, "-m", *shlex.split(DOCUMENTED.replace("127.0.0.1:8000", f"{HOST}:{port}"))]
    environment = production_env(directory, DJANGO_SECURE_SSL_REDIRECT="false", DJANGO_SUBMISSION_RATE="off")
    migrated_into(environment)  # migrate's database, made once (tests/migrated_database.py)
    with running(command, port, directory, "gunicorn", cwd=ROOT, env=environment):
        assert up(port)
        yield port


def up(port: int) -> bool:
    """/healthz answered 200 within two minutes: on a busy machine a worker's first request (which imports
    the URL configuration) can outlast the timeout, and that worker is restarted and asked again."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if answer(port, timeout=10) == 200:
                return True
        except (OSError, http.client.HTTPException):  # that worker was restarted under the request
            time.sleep(0.5)
    return False


@pytest.fixture(scope="module")
def proxy(app, tmp_path_factory):
    with nginx_server(tmp_path_factory.mktemp("nginx"), app, DEPLOY / "nginx-app.conf") as port:
        yield port


def answer(port: int, timeout: float) -> int | None:
    """GET /healthz; its status, or None if nothing answered within `timeout` seconds."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", "/healthz", headers={"Host": PUBLIC_HOST})
        return connection.getresponse().status
    except TimeoutError:
        return None
    finally:
        connection.close()


@contextmanager
def stalled_connections(port: int, count: int):
    """`count` connections that send part of a request's headers and never the rest."""
    with ExitStack() as stack:
        for _ in range(count):
            sock = stack.enter_context(socket.create_connection((HOST, port), timeout=5))
            sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {PUBLIC_HOST}\r\nX-Slow: ".encode())
        time.sleep(0.5)  # let the server take them
        yield


def test_connections_that_never_finish_their_headers_do_not_stall_the_workers_behind_nginx(proxy):
    with stalled_connections(proxy, WORKERS + 2):
        started = time.monotonic()
        assert answer(proxy, timeout=5) == 200
        assert time.monotonic() - started < 2


def test_without_nginx_the_same_connections_stall_every_worker(app):
    with stalled_connections(app, WORKERS + 2):
        assert answer(app, timeout=3) is None
    assert answer(app, timeout=10) == 200  # closed: the workers are free again


def test_nginx_passes_the_clients_host_on_to_the_app(proxy):
    connection = http.client.HTTPConnection(HOST, proxy, timeout=10)
    connection.request("GET", "/s/no-such-survey/", headers={"Host": "elsewhere.example"})
    assert connection.getresponse().status == 400  # the Host reached Django, which refuses it

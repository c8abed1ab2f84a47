"""The shipped site (docs/deploy/nginx-site.conf with the nginx-app.conf it includes) passes `nginx -t`,
speaks HTTP/2 over TLS, gzips the respondent's page and leaves the precompressed static files and the
app's headers as the app sent them.

Debian's nginx runs the shipped files as tests/servers.local_site adapts them (loopback ports, a throwaway
certificate), in front of a production-mode instance of the demo survey (tests/e2e/production.py:
collectstatic's hashed, compressed files served by whitenoise under gunicorn).
"""

import gzip
import http.client
import re
import socket
import ssl
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.e2e.production import production_server
from tests.servers import HOST, nginx_check, nginx_site

pytestmark = pytest.mark.slow  # gunicorn and nginx in subprocesses
DEPLOY = Path(__file__).resolve().parent.parent / "docs" / "deploy"
SITE, APP = DEPLOY / "nginx-site.conf", DEPLOY / "nginx-app.conf"
PAGE = "/s/demo/"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    """The app's port: a production-mode server of the demo survey."""
    with production_server(tmp_path_factory.mktemp("app")) as url:
        yield urlsplit(url).port


@pytest.fixture(scope="module")
def site(upstream, tmp_path_factory):
    with nginx_site(tmp_path_factory.mktemp("nginx"), upstream, SITE, APP) as port:
        yield port


def tls(protocols: list[str] | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the throwaway certificate
    if protocols:
        context.set_alpn_protocols(protocols)
    return context


def get(port: int, path: str, **headers: str) -> tuple[http.client.HTTPResponse, bytes]:
    connection = http.client.HTTPSConnection(HOST, port, timeout=30, context=tls())
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response, response.read()
    finally:
        connection.close()


def without_token(page: bytes) -> bytes:
    """The page with its CSRF token (masked afresh in every response) blanked."""
    blanked, count = re.subn(rb'"csrfToken": "[^"]+"', b'"csrfToken": ""', page)
    assert count == 1
    return blanked


def test_the_shipped_site_passes_nginx_t(tmp_path):
    checked = nginx_check(tmp_path, 8000, SITE, APP)
    assert checked.returncode == 0 and "test is successful" in checked.stderr, checked.stderr


def test_it_speaks_http2_to_a_browser_that_offers_it(site):
    with socket.create_connection((HOST, site), timeout=10) as raw:
        with tls(["h2", "http/1.1"]).wrap_socket(raw, server_hostname="survey.example.org") as connection:
            assert connection.selected_alpn_protocol() == "h2"


def test_it_gzips_the_respondents_page_for_a_browser_that_accepts_it(site):
    compressed, body = get(site, PAGE, **{"Accept-Encoding": "gzip, deflate, br"})
    plain, plain_body = get(site, PAGE)
    assert (compressed.status, plain.status) == (200, 200)
    assert compressed.getheader("Content-Type") == "text/html; charset=utf-8"
    assert compressed.getheader("Content-Encoding") == "gzip"
    assert "Accept-Encoding" in compressed.getheader("Vary", "")
    assert len(body) < len(plain_body) / 2
    assert without_token(gzip.decompress(body)) == without_token(plain_body)


def test_it_sends_the_page_as_it_is_to_a_client_that_accepts_no_compression(site):
    response, body = get(site, PAGE)
    assert response.getheader("Content-Encoding") is None
    assert body.lstrip().lower().startswith(b"<!doctype html>")


def test_the_modules_come_precompressed_from_the_app_with_their_immutable_cache_header(site, upstream):
    _, page = get(site, PAGE)
    module = re.search(rb'<script type="module" src="([^"]+)"', page).group(1).decode()
    through, body = get(site, module, **{"Accept-Encoding": "gzip"})
    direct = http.client.HTTPConnection(HOST, upstream, timeout=30)
    direct.request("GET", module, headers={"Accept-Encoding": "gzip"})
    answered = direct.getresponse()
    assert body == answered.read()  # whitenoise's .gz copy, not compressed again
    assert through.getheader("Content-Encoding") == "gzip"
    assert through.getheader("Cache-Control") == "max-age=315360000, public, immutable"
    direct.close()


def test_the_apps_security_headers_pass_through_unchanged(site, upstream):
    through, _ = get(site, PAGE, **{"Accept-Encoding": "gzip"})
    direct = http.client.HTTPConnection(HOST, upstream, timeout=30)
    direct.request("GET", PAGE, headers={"X-Forwarded-Proto": "https"})
    answered = direct.getresponse()
    answered.read()
    direct.close()
    for header in ("Content-Security-Policy", "Referrer-Policy", "Cross-Origin-Opener-Policy",
                   "X-Content-Type-Options", "Cache-Control", "Strict-Transport-Security"):
        assert through.getheader(header) == answered.getheader(header), header
    assert through.getheader("Content-Security-Policy")

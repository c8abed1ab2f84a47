"""The per-network submission limit: a 429 with Retry-After beyond the configured rate,
counted per /24 (IPv4) or /56 (IPv6; both configurable), behind a configured number of proxies, and nothing stored."""

import json
import time

import pytest
from django.core.cache import cache
from django.test import RequestFactory

from surveys.collection import ratelimit
from tests.collection.helpers import stored
from tests.factories import valid_payload

URL = "/api/v1/surveys/health/responses/"


@pytest.fixture(autouse=True)
def limited(settings):
    settings.SUBMISSION_RATE = (3, 60)
    settings.PROXY_COUNT = 0
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def one_window(monkeypatch):
    """The limit counts in fixed 60 s windows: on the wall clock one could end between two of a test's posts
    (more likely on a loaded machine), and the fourth post would start a new budget. A still clock, 1 s
    into a window, keeps each test in one (test_a_new_window_starts_a_new_budget sets its own)."""
    now = time.time() // 60 * 60 + 1
    monkeypatch.setattr(ratelimit.time, "time", lambda: now)


def post(client, survey, address="203.0.113.7", **headers):
    return client.post(URL, data=json.dumps(valid_payload(survey)), content_type="application/json",
                       REMOTE_ADDR=address, **headers)


def test_it_accepts_submissions_up_to_the_limit_then_answers_429_and_stores_nothing(client, survey):
    assert [post(client, survey).status_code for _ in range(3)] == [201, 201, 201]
    before = stored()
    refused = post(client, survey)
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert refused.json()["error"]["field"] == "request" and "too many" in refused.json()["error"]["reason"]
    assert stored() == before


def test_addresses_in_one_network_share_a_budget_and_other_networks_do_not(client, survey):
    for host in (1, 2, 3):
        assert post(client, survey, f"198.51.100.{host}").status_code == 201
    assert post(client, survey, "198.51.100.200").status_code == 429
    assert post(client, survey, "198.51.101.1").status_code == 201


def test_ipv6_addresses_are_counted_per_56(client, survey):
    """A household often holds a /56: its 256 /64s share one budget."""
    for subnet in ("00", "01", "ff"):  # three /64s of 2001:db8:0:1200::/56
        assert post(client, survey, f"2001:db8:0:12{subnet}::1").status_code == 201
    assert post(client, survey, "2001:db8:0:1280:ffff::9").status_code == 429
    assert post(client, survey, "2001:db8:0:1300::1").status_code == 201  # the next /56


def test_the_networks_prefix_lengths_are_configurable(rf: RequestFactory, settings):
    request = rf.post(URL, REMOTE_ADDR="2001:db8:0:12ab::1")
    assert ratelimit.client_network(request) == "2001:db8:0:1200::/56"
    settings.NETWORK_PREFIX = {4: 32, 6: 64}
    assert ratelimit.client_network(request) == "2001:db8:0:12ab::/64"
    assert ratelimit.client_network(rf.post(URL, REMOTE_ADDR="198.51.100.7")) == "198.51.100.7/32"


def test_a_new_window_starts_a_new_budget(client, survey, monkeypatch):
    clock = [1_000_040.0]  # 20 s into a 60 s window (1_000_020 is a multiple of 60)
    monkeypatch.setattr(ratelimit.time, "time", lambda: clock[0])
    for _ in range(3):
        post(client, survey)
    refused = post(client, survey)
    assert refused.status_code == 429 and refused["Retry-After"] == "40"
    clock[0] += 40
    assert post(client, survey).status_code == 201


def test_it_is_off_when_configured_off(client, survey, settings):
    settings.SUBMISSION_RATE = None
    assert {post(client, survey).status_code for _ in range(6)} == {201}


def test_behind_proxies_it_counts_the_address_the_last_trusted_proxy_saw(rf: RequestFactory, settings):
    settings.PROXY_COUNT = 1
    request = rf.post(URL, REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 192.0.2.77")
    assert ratelimit.client_network(request) == "192.0.2.0/24"  # the client's own claim (1.2.3.4) is ignored
    settings.PROXY_COUNT = 0
    assert ratelimit.client_network(request) == "10.0.0.0/24"


def test_a_spoofed_forwarded_header_does_not_dodge_the_limit_without_proxies(client, survey):
    for n in range(3):
        assert post(client, survey, HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").status_code == 201
    assert post(client, survey, HTTP_X_FORWARDED_FOR="192.0.2.99").status_code == 429


def test_the_cache_never_holds_the_address(client, survey):
    post(client, survey, "203.0.113.7")
    keys = list(cache._cache.keys())  # local-memory cache: the raw keys
    assert keys and not any("203.0.113" in key for key in keys)


def test_it_limits_only_submissions(client, survey):
    for _ in range(5):
        post(client, survey)
    assert client.get("/s/health/", REMOTE_ADDR="203.0.113.7").status_code == 200
    assert client.get("/api/v1/surveys/health/", REMOTE_ADDR="203.0.113.7").status_code == 200

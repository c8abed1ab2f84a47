"""Failed sign-ins are throttled on both login pages: after DJANGO_LOGIN_LOCKOUT's COUNT failures
(5 by default) for one username from one address, that username is refused from that address
with 429, a message and Retry-After, even with the right password, until the cool-off ends."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache

from surveys.accounts import throttle
from tests.accounts.conftest import LOGIN_PAGES, sign_in, signed_in

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def lockout(settings):
    settings.LOGIN_LOCKOUT = (5, 900)
    settings.PROXY_COUNT = 0


@pytest.mark.slow
@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_twenty_wrong_passwords_in_a_row_get_throttled(client, staff, page, monkeypatch):
    monkeypatch.setattr(throttle.time, "time", lambda: 1_000_000.0)  # Retry-After counts down by the second
    statuses = [sign_in(client, page, "editor", "wrong").status_code for _ in range(20)]
    assert statuses == [200] * 4 + [429] * 16
    refused = sign_in(client, page, "editor", "wrong")
    assert refused["Retry-After"] == "900"
    assert "Too many failed sign-ins for this account from your network. Try again in 15 minutes." in \
        refused.content.decode()


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_a_locked_out_username_is_refused_even_with_the_right_password(client, staff, page):
    for _ in range(5):
        sign_in(client, page, "editor", "wrong")
    assert sign_in(client, page, "editor").status_code == 429
    assert not signed_in(client)


def test_both_login_pages_count_together(client, staff):
    for page in LOGIN_PAGES * 2:
        sign_in(client, page, "editor", "wrong")
    assert sign_in(client, "/accounts/login/", "editor", "wrong").status_code == 429


def test_the_lockout_is_per_username_and_address(client, staff, owner):
    for _ in range(5):
        sign_in(client, "/admin/login/", "editor", "wrong", address="198.51.100.7")
    assert sign_in(client, "/accounts/login/", "owner").status_code == 302  # another username
    client.logout()
    assert sign_in(client, "/admin/login/", "editor", address="198.51.100.8").status_code == 302  # another address


def test_ipv6_addresses_count_by_their_network(client, staff):
    for host in range(5):
        sign_in(client, "/admin/login/", "editor", "wrong", address=f"2001:db8:0:12{host:02x}::{host}")
    assert sign_in(client, "/admin/login/", "editor", address="2001:db8:0:1280::1").status_code == 429
    assert sign_in(client, "/admin/login/", "editor", address="2001:db8:0:1300::1").status_code == 302


def test_the_lockout_ends_after_the_cool_off(client, staff, monkeypatch):
    clock = [1_000_000.0]
    monkeypatch.setattr(throttle.time, "time", lambda: clock[0])
    for _ in range(5):
        sign_in(client, "/admin/login/", "editor", "wrong")
    clock[0] += 899
    refused = sign_in(client, "/admin/login/", "editor")
    assert (refused.status_code, refused["Retry-After"]) == (429, "1")
    clock[0] += 1
    assert sign_in(client, "/admin/login/", "editor").status_code == 302


def test_a_successful_sign_in_forgets_the_failures(client, staff):
    for _ in range(4):
        sign_in(client, "/accounts/login/", "editor", "wrong")
    assert sign_in(client, "/accounts/login/", "editor").status_code == 302
    client.logout()
    assert [sign_in(client, "/accounts/login/", "editor", "wrong").status_code for _ in range(5)] == [200] * 4 + [429]


def test_it_is_off_when_configured_off(client, staff, settings):
    settings.LOGIN_LOCKOUT = None
    assert {sign_in(client, "/admin/login/", "editor", "wrong").status_code for _ in range(10)} == {200}
    assert sign_in(client, "/admin/login/", "editor").status_code == 302


def test_the_cache_holds_neither_the_username_nor_the_address(client, staff):
    sign_in(client, "/admin/login/", "editor", "wrong", address="203.0.113.77")
    keys = list(cache._cache.keys())  # local-memory cache: the raw keys
    assert keys and not any("editor" in key or "203.0.113" in key for key in keys)


@pytest.mark.slow
@pytest.mark.parametrize("raw, expected", [("", "(5, 900)"), ("3/60", "(3, 60)"), ("off", "None")])
def test_the_lockout_is_configured_by_an_environment_variable(raw, expected):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    environment.update(DJANGO_SETTINGS_MODULE="surveys.settings", DJANGO_LOGIN_LOCKOUT=raw)
    result = subprocess.run([sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
                             "print(settings.LOGIN_LOCKOUT)"], cwd=ROOT, env=environment, capture_output=True,
                            text=True, timeout=60, check=True)
    assert result.stdout.strip() == expected

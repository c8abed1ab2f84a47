"""surveys.env: settings are parsed strictly, so a bad value stops start-up."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from surveys import env

ROOT = Path(__file__).resolve().parents[2]
VAR = "SURVEYS_TEST_SETTING"


@pytest.fixture(autouse=True)
def unset(monkeypatch):
    monkeypatch.delenv(VAR, raising=False)


@pytest.mark.parametrize("raw", ["1", "true", "TRUE", " yes ", "On"])
def test_boolean_reads_true_words(monkeypatch, raw):
    monkeypatch.setenv(VAR, raw)
    assert env.boolean(VAR, False) is True


@pytest.mark.parametrize("raw", ["0", "false", "False", " no", "OFF"])
def test_boolean_reads_false_words(monkeypatch, raw):
    monkeypatch.setenv(VAR, raw)
    assert env.boolean(VAR, True) is False


@pytest.mark.parametrize("default", [True, False])
def test_boolean_falls_back_to_the_default_when_unset_or_empty(monkeypatch, default):
    assert env.boolean(VAR, default) is default
    monkeypatch.setenv(VAR, "")
    assert env.boolean(VAR, default) is default


@pytest.mark.parametrize("raw", ["maybe", "2", "y", "truthy", "-1"])
def test_boolean_refuses_anything_else(monkeypatch, raw):
    monkeypatch.setenv(VAR, raw)
    with pytest.raises(ImproperlyConfigured, match=VAR):
        env.boolean(VAR, True)


def test_choice_accepts_a_listed_value_and_defaults_when_unset(monkeypatch):
    assert env.choice(VAR, "development", ("development", "production")) == "development"
    monkeypatch.setenv(VAR, "production")
    assert env.choice(VAR, "development", ("development", "production")) == "production"


@pytest.mark.parametrize("raw", ["staging", "Production", "maybe"])
def test_choice_refuses_an_unlisted_value(monkeypatch, raw):
    monkeypatch.setenv(VAR, raw)
    with pytest.raises(ImproperlyConfigured, match=VAR):
        env.choice(VAR, "development", ("development", "production"))


def test_integer_reads_an_integer_and_defaults_when_unset(monkeypatch):
    assert env.integer(VAR, 60) == 60
    monkeypatch.setenv(VAR, "31536000")
    assert env.integer(VAR, 60) == 31536000


@pytest.mark.parametrize("raw", ["maybe", "1.5", "ten", "0x10"])
def test_integer_refuses_a_non_integer(monkeypatch, raw):
    monkeypatch.setenv(VAR, raw)
    with pytest.raises(ImproperlyConfigured, match=VAR):
        env.integer(VAR, 60)


@pytest.mark.parametrize("raw", ["15", "129"])
def test_integer_refuses_a_value_out_of_its_range(monkeypatch, raw):
    monkeypatch.setenv(VAR, raw)
    with pytest.raises(ImproperlyConfigured, match="from 16 to 128"):
        env.integer(VAR, 56, 16, 128)
    monkeypatch.setenv(VAR, "48")
    assert env.integer(VAR, 56, 16, 128) == 48


def test_text_without_a_default_must_be_set(monkeypatch):
    with pytest.raises(ImproperlyConfigured, match=VAR):
        env.text(VAR)
    monkeypatch.setenv(VAR, "")
    with pytest.raises(ImproperlyConfigured, match=VAR):
        env.text(VAR)
    monkeypatch.setenv(VAR, "s3cret")
    assert env.text(VAR) == "s3cret"


def test_listing_splits_on_commas_and_drops_blanks(monkeypatch):
    assert env.listing(VAR, ["localhost"]) == ["localhost"]
    monkeypatch.setenv(VAR, " example.org, ,www.example.org ,")
    assert env.listing(VAR, []) == ["example.org", "www.example.org"]


def _start_django(**variables):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    environment.update(DJANGO_SETTINGS_MODULE="surveys.settings", **variables)
    return subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_a_bad_boolean_in_the_environment_stops_start_up():
    assert _start_django().returncode == 0
    result = _start_django(DJANGO_DEBUG="maybe")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "DJANGO_DEBUG" in result.stderr


def test_production_refuses_to_start_without_a_secret_key():
    result = _start_django(DJANGO_ENV="production", DJANGO_ALLOWED_HOSTS="example.org")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


@pytest.mark.parametrize("raw, expected", [("30/60", (30, 60)), (" 5/1 ", (5, 1)), ("off", None), ("OFF", None),
                                           ("", (9, 9))])
def test_rate_reads_count_per_seconds_or_off(monkeypatch, raw, expected):
    monkeypatch.setenv(VAR, raw)
    assert env.rate(VAR, (9, 9)) == expected


@pytest.mark.parametrize("raw", ["30", "30/", "/60", "0/60", "30/0", "-1/60", "a/b", "30/60/1"])
def test_rate_refuses_anything_else(monkeypatch, raw):
    monkeypatch.setenv(VAR, raw)
    with pytest.raises(ImproperlyConfigured, match=VAR):
        env.rate(VAR, (9, 9))

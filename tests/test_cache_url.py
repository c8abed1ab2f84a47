"""DJANGO_CACHE_URL: which cache a URL names, and a bad one stops start-up."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from surveys import cache_url

REDIS = "django.core.cache.backends.redis.RedisCache"


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://:secret@cache.example:6380/1",
                                 "unix:///run/redis/redis.sock"])
def test_a_redis_url_names_djangos_redis_cache_at_that_location(url):
    assert cache_url.parse(url) == {"BACKEND": REDIS, "LOCATION": url, "OPTIONS": cache_url.REDIS_OPTIONS}


@pytest.mark.parametrize("url, table", [("db://", "surveys_cache"), ("db://rate_counts", "rate_counts")])
def test_a_db_url_names_the_database_cache_and_its_table(url, table):
    assert cache_url.parse(url) == {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": table}


def test_locmem_is_the_per_process_cache():
    assert cache_url.parse("locmem://") == {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}


@pytest.mark.parametrize("url", ["memcached://127.0.0.1:11211", "127.0.0.1:6379", "db://bad;name"])
def test_anything_else_is_refused_naming_the_variable(url):
    with pytest.raises(ImproperlyConfigured, match="DJANGO_CACHE_URL"):
        cache_url.parse(url)


def test_the_default_cache_is_per_process(settings):
    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"

"""The cache every server shares, from one URL (DJANGO_CACHE_URL).

The rate limits (submissions, failed sign-ins) count in the cache. Django's default cache is
local to each process, so with several gunicorn workers or servers each counts on its own and
the limit multiplies; a cache all of them reach shares one count:

- `redis://[:password@]host:6379/0` (or `rediss://` for TLS, `unix:///path/redis.sock`): Redis,
  through Django's own `RedisCache` (the `redis` package); increments are atomic.
- `db://` or `db://table_name`: a table in the app's database (default `surveys_cache`), made
  once with `python manage.py createcachetable`; no other service to run, but an increment is
  a read and a write, so concurrent requests may undercount a little.
- `locmem://` (the default): per process.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

REDIS_SCHEMES = ("redis", "rediss", "unix")
DEFAULT_TABLE = "surveys_cache"
# A cache that does not answer must not hang a worker: fail fast instead.
REDIS_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 2}


def parse(url: str, name: str = "DJANGO_CACHE_URL") -> dict[str, Any]:
    """Django's CACHES entry for `url`; ImproperlyConfigured names the variable if it cannot be."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "locmem":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    if scheme in REDIS_SCHEMES:
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url,
                "OPTIONS": dict(REDIS_OPTIONS)}
    if scheme == "db":
        table = url.split("://", 1)[1].strip("/") or DEFAULT_TABLE
        if not table.replace("_", "").isalnum():
            raise ImproperlyConfigured(f"{name}: the table name must be letters, digits and _, got {table!r}")
        return {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": table}
    raise ImproperlyConfigured(f"{name} must start with redis://, rediss://, unix://, db:// or locmem://; got {url!r}")

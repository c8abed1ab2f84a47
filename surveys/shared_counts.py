"""Whether the rate limits count once for the whole deployment.

The sign-in lockout and the submission limit count in Django's cache. A per-process cache (locmem://, what
an unset DJANGO_CACHE_URL means) counts in each gunicorn worker on its own: with 3 workers the first lockout
came at the 12th wrong password, not the 6th, and `check --deploy` said nothing. So, in production:

- `check --deploy` warns (surveys.W001) whenever the cache is per process: it cannot see how many workers
  or servers will run;
- gunicorn (gunicorn.conf.py, read from the directory it starts in) refuses to start more than one worker
  when DJANGO_CACHE_URL is unset, and warns when it is an explicit locmem:// (a choice: a benchmark on one
  machine, say).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core import checks

PER_PROCESS_BACKEND = "django.core.cache.backends.locmem.LocMemCache"
ADVICE = ("set DJANGO_CACHE_URL to a cache every worker and server reaches (redis://... or db://, "
          "docs/operations.md, \"Shared counters\")")


@checks.register(checks.Tags.security, deploy=True)
def per_process_cache(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if not settings.PRODUCTION or settings.CACHES["default"]["BACKEND"] != PER_PROCESS_BACKEND:
        return []
    return [checks.Warning(
        "The cache is per process: each gunicorn worker and each server counts failed sign-ins and "
        "submissions on its own, so the limits multiply by their number.", hint=ADVICE, id="surveys.W001")]


def start_problem(environ: Mapping[str, str], workers: int) -> tuple[bool, str] | None:
    """For gunicorn's start with `workers` in the environment `environ`: (refuse?, why), or None."""
    if environ.get("DJANGO_ENV") != "production" or workers <= 1:
        return None
    url = environ.get("DJANGO_CACHE_URL", "")
    if not url:
        return True, (f"{workers} workers with DJANGO_CACHE_URL unset: each would count failed sign-ins and "
                      f"submissions on its own, so the limits would be {workers} times too high; {ADVICE}, or "
                      "run one worker")
    if url.lower().startswith("locmem:"):
        return False, (f"{workers} workers with DJANGO_CACHE_URL={url}: each counts failed sign-ins and "
                       f"submissions on its own, so the limits are {workers} times higher")
    return None

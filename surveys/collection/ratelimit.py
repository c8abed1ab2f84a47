"""A per-network limit on submissions: flood (DoS) protection, not identification.

Counts submissions per client network (by default IPv4 /24 and IPv6 /56, settings.NETWORK_PREFIX:
a household or a small site commonly holds a whole IPv6 /56, so one respondent cannot dodge it
by hopping addresses in their own range) in fixed windows of settings.SUBMISSION_RATE. The
cache key is a keyed hash of the network and the window, never the address, and expires
with the window; nothing of it reaches the database or the logs. With a shared cache
(DJANGO_CACHE_URL) every worker and server counts against one budget.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle


def client_address(request: HttpRequest | Request) -> str:
    """The socket peer, or the address the last trusted proxy saw (settings.PROXY_COUNT)."""
    address: str = request.META.get("REMOTE_ADDR", "")
    if settings.PROXY_COUNT:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        if len(forwarded) >= settings.PROXY_COUNT:
            address = forwarded[-settings.PROXY_COUNT]
    return address


def client_network(request: HttpRequest | Request, prefix: dict[int, int] | None = None) -> str:
    """The client's network, by `prefix` (IP version -> prefix length; default settings.NETWORK_PREFIX)."""
    try:
        ip = ipaddress.ip_address(client_address(request))
    except ValueError:
        return "unknown"  # all malformed addresses share one budget
    length = (prefix or settings.NETWORK_PREFIX)[ip.version]
    return str(ipaddress.ip_network(f"{ip}/{length}", strict=False))


def keyed(*parts: str) -> str:
    """A name for a cache key from which nobody without the secret key learns the parts."""
    return hmac.new(settings.SECRET_KEY.encode(), "|".join(parts).encode(), hashlib.sha256).hexdigest()[:32]


def count(key: str, seconds: int) -> int:
    """Add one to the counter `key` (made, expiring after `seconds`, if missing) and return it."""
    cache.add(key, 0, timeout=seconds)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr: a new count
        cache.add(key, 1, timeout=seconds)
        return 1


class SubmissionThrottle(BaseThrottle):
    """DRF throttle: allow_request counts this submission; wait() is the seconds until the next
    window, which DRF sends as Retry-After with its 429."""

    def allow_request(self, request: Request, view: object) -> bool:
        self._wait: float | None = None
        if settings.SUBMISSION_RATE is None:
            return True
        limit, seconds = settings.SUBMISSION_RATE
        now = time.time()
        window = int(now // seconds)
        if count(f"submission-rate:{keyed(client_network(request), str(window))}", seconds + 1) <= limit:
            return True
        self._wait = max(1, int((window + 1) * seconds - now))
        return False

    def wait(self) -> float | None:
        return self._wait

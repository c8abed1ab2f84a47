"""A per-network limit on submissions: flood (DoS) protection, not identification.

Counts submissions per client network (IPv4 /24, IPv6 /64, so one respondent cannot dodge it
by hopping addresses in their own range) in fixed windows of settings.SUBMISSION_RATE. The
cache key is a keyed hash of the network and the window, never the address, and expires
with the window; nothing of it reaches the database or the logs.
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

PREFIX = {4: 24, 6: 64}


def client_network(request: HttpRequest | Request) -> str:
    """The client's network: the socket peer, or the address the last trusted proxy saw."""
    address = request.META.get("REMOTE_ADDR", "")
    if settings.PROXY_COUNT:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        if len(forwarded) >= settings.PROXY_COUNT:
            address = forwarded[-settings.PROXY_COUNT]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "unknown"  # all malformed addresses share one budget
    return str(ipaddress.ip_network(f"{ip}/{PREFIX[ip.version]}", strict=False))


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
        name = hmac.new(settings.SECRET_KEY.encode(), f"{client_network(request)}|{window}".encode(),
                        hashlib.sha256).hexdigest()[:32]
        key = f"submission-rate:{name}"
        cache.add(key, 0, timeout=seconds + 1)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr: a new window
            cache.add(key, 1, timeout=seconds + 1)
            count = 1
        if count <= limit:
            return True
        self._wait = max(1, int((window + 1) * seconds - now))
        return False

    def wait(self) -> float | None:
        return self._wait

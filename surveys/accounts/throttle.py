"""Failed sign-ins: after COUNT failures for one username from one client address within SECONDS,
that username is refused from that address for SECONDS, even with the right password
(settings.LOGIN_LOCKOUT, from DJANGO_LOGIN_LOCKOUT="COUNT/SECONDS", default 5/900, or "off").

The address is the one the submission limit sees (behind DJANGO_PROXY_COUNT proxies); an IPv6
address counts by its network (settings.NETWORK_PREFIX, /56 by default), since one host can
take any address of its /64. Counts live in the cache (shared between servers with
DJANGO_CACHE_URL) under a keyed hash of the username and the address, never the address itself,
and expire with the cool-off.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

from surveys.collection.ratelimit import client_network, count, keyed


@dataclass(frozen=True)
class LoginThrottle:
    name: str  # keyed hash of the username and the address

    @classmethod
    def of(cls, request: HttpRequest, username: str) -> LoginThrottle:
        address = client_network(request, {4: 32, 6: settings.NETWORK_PREFIX[6]})
        return cls(keyed("login", username.strip().casefold(), address))

    def retry_after(self) -> int | None:
        """Seconds until this username may try again from this address; None if it may now."""
        if settings.LOGIN_LOCKOUT is None:
            return None
        until = cache.get(f"login-locked:{self.name}")
        left = None if until is None else until - time.time()
        return math.ceil(left) if left is not None and left > 0 else None

    def failed(self) -> int | None:
        """Count a failure; the seconds of the lockout it starts, if it is the last one allowed."""
        if settings.LOGIN_LOCKOUT is None:
            return None
        limit, seconds = settings.LOGIN_LOCKOUT
        if count(f"login-failures:{self.name}", seconds) < limit:
            return None
        cache.set(f"login-locked:{self.name}", time.time() + seconds, timeout=seconds + 1)
        cache.delete(f"login-failures:{self.name}")
        return seconds

    def succeeded(self) -> None:
        cache.delete(f"login-failures:{self.name}")

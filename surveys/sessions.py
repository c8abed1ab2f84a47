"""The database session engine, refusing session keys Django never issues.

A cookie can carry any text, even a NUL, which PostgreSQL refuses in a text column: looked
up as is, such a key turns every request into a 500. Keys Django makes use only
VALID_KEY_CHARS, so anything else is simply no session.
"""

from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore

_VALID = frozenset(VALID_KEY_CHARS)


class SessionStore(DatabaseSessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        # A private hook of Django's session base class (absent from the type stubs).
        return bool(super()._validate_session_key(key) and set(key or "") <= _VALID)  # type: ignore[misc]

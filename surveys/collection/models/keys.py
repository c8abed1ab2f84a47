"""Primary keys that carry no arrival order.

An auto-incremented key numbers rows in the order they arrive, so anyone holding the database and
a proxy's access log could line reports up with visits. These keys are drawn at random instead.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import models

KEY_BITS = 62
PER_RESPONSE_BITS = 16  # room for the reports of one response, one key each


def random_key() -> int:
    """62 random bits with bit 62 set: a positive 64-bit integer in [2**62, 2**63), so never one of
    the small sequential keys of before (the migration that re-keys them relies on it)."""
    return secrets.randbits(KEY_BITS) | 1 << KEY_BITS


def report_keys(count: int) -> list[int]:
    """Keys for the `count` reports of one response: a random 46-bit base (bit 62 set, as above)
    and the report's position in the low 16 bits. Consecutive keys keep one response's reports on
    one page of the table (writing them at 10 random places cost SQLite twice the time of the whole
    insert), and say nothing a report's response_id does not. A new response's base collides with
    one of n stored with probability n / 2**46 (1.4e-8 at a million responses): that write is
    refused, and its browser, which keeps the payload, resends it with new keys."""
    if count >= 1 << PER_RESPONSE_BITS:
        raise ValueError(f"at most {(1 << PER_RESPONSE_BITS) - 1} reports per response")
    base = (secrets.randbits(KEY_BITS - PER_RESPONSE_BITS) | 1 << (KEY_BITS - PER_RESPONSE_BITS)) << PER_RESPONSE_BITS
    return [base | position for position in range(count)]


class RandomKey(models.BigIntegerField):
    """A primary key drawn by `random_key`. On SQLite its column is declared INTEGER, which makes it
    the rowid: the table itself is then stored in key order, not arrival order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("primary_key", True)
        kwargs.setdefault("default", random_key)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def db_type(self, connection: Any) -> str | None:
        return "integer" if connection.vendor == "sqlite" else super().db_type(connection)

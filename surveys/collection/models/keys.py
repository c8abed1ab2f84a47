"""Primary keys that carry no arrival order.

An auto-incremented key numbers rows in the order they arrive, so anyone holding the database and
a proxy's access log could line reports up with visits. These keys are drawn at random instead.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import models

KEY_BITS = 62


def random_key() -> int:
    """62 random bits with bit 62 set: a positive 64-bit integer in [2**62, 2**63), so never one of
    the small sequential keys of before (the migration that re-keys them relies on it). Two keys
    collide with probability n / 2**62 per new row among n: about 2e-12 at 10 million reports, and a
    collision only refuses that one write (its browser resends the same reports, with new keys)."""
    return secrets.randbits(KEY_BITS) | 1 << KEY_BITS


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

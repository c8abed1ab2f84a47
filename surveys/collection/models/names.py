"""A question's name when none is given: q<order>, or when another question of its survey has that name (after
questions were reordered), the next free q<n>. Names label questions in the definition API, exports and
formulas; they are never part of how reports are made or read."""

from __future__ import annotations

from typing import Any


def free(order: int, others: Any) -> str:
    """The name for the question at `order` among `others` (a queryset of its survey's other questions)."""
    taken = set(others.values_list("name", flat=True))
    n = order
    while f"q{n}" in taken:
        n += 1
    return f"q{n}"

"""Building a mechanism from the fields a person typed: the one rule for which fields a mechanism takes (its class's
`keys`, declared beside its constructor) and a refusal that names the field it is about.

The command line, the app's question kinds and its admin, and the codebook reader each word their refusals their
own way (a flag, a form field); what they share is which field is at fault, which `FieldRefusal.field` says.
"""

from __future__ import annotations

from typing import Any

from .base import Mechanism
from .registry import MECHANISMS, from_dict

OPTIONAL = frozenset({"at_most"})  # None: any subset of the options may be ticked
# What a constructor's refusal is about, by how its message begins (`check_k`, `check_grid`, `MultiSelect`).
_CULPRITS = {"k ": "k", "at_most": "at_most", "lo ": "lo", "hi ": "hi", "step ": "step", "(hi - lo)": "step"}


class FieldRefusal(ValueError):
    """A mechanism that cannot be built from the fields given; `field` is the one at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def culprit(cls: type[Mechanism], message: str) -> str:
    """The field a constructor's refusal is about: the one its message names first, else the privacy parameter
    (epsilon or q), or k for a mechanism that has none.

    >>> from ldp import KaryRR, DirectNumber
    >>> culprit(KaryRR, "k must lie in [2, 64], got 1"), culprit(KaryRR, "epsilon must be a number")
    ('k', 'epsilon')
    >>> culprit(DirectNumber, "(hi - lo) / step must be a whole number of steps, got 2.5")
    'step'
    """
    found = next((field for start, field in _CULPRITS.items() if message.startswith(start)), None)
    return found or cls.parameter or "k"


def build(name: str, **fields: Any) -> Mechanism:
    """Mechanism `name` from its fields (None: not given): FieldRefusal for a field it does not take, one it needs
    and lacks, or the one its constructor refused (with the constructor's words).

    >>> build("krr", epsilon=1.0, k=3).to_dict()
    {'mechanism': 'krr', 'epsilon': 1.0, 'k': 3}
    >>> try:
    ...     build("onebit", epsilon=1.0, lo="0", hi="10", step="3")
    ... except FieldRefusal as refusal:
    ...     print(refusal.field, "|", refusal)
    step | (hi - lo) / step must be a whole number of steps, got 3.33333
    """
    cls = MECHANISMS.get(name)
    if cls is None:
        raise FieldRefusal("mechanism", f"mechanism must be one of {sorted(MECHANISMS)}, got {name!r}")
    for field, value in fields.items():
        if value is not None and field not in cls.keys:
            raise FieldRefusal(field, f"not used by {name}")
    for field in sorted(cls.keys - OPTIONAL):
        if fields.get(field) is None:
            raise FieldRefusal(field, f"required for {name}")
    try:
        return from_dict({"mechanism": name, **{field: fields.get(field) for field in cls.keys}})
    except (ValueError, TypeError) as error:
        raise FieldRefusal(culprit(cls, str(error)), str(error)) from None

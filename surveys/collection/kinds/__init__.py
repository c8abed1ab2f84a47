"""The kinds of question, one module each, and their registry.

| kind          | mechanisms                  | answer                      | options                    |
|---------------|-----------------------------|-----------------------------|----------------------------|
| yes_no        | qrr, bitflip                | no / yes                    | none (No, Yes)             |
| single_choice | krr, sue, oue, direct       | one option                  | 2 to 32                    |
| multi_select  | multiselect                 | any subset (at most m)      | 2 to 32                    |
| numeric       | onebit, dlaplace (its mean) | a number on lo..hi by step  | none                       |
| numeric       | krr (a histogram)           | the same, counted in bins   | 2 to 32 bins (lower edges) |
| ordinal       | krr, sue, oue               | one level                   | 2 to 32 levels with scores |

The registry is the one source of the question's kind choices, of the database constraint
`question_mechanism_fits_kind` and of what the admin offers. Its order is the admin's order, and
the first kind a mechanism fits is the one its figures are worked out for.
"""

from __future__ import annotations

from typing import Any

import ldp
from ldp.mechanisms.exact_q import QValue

from ..scales import Scale
from . import multi_select, numeric, ordinal, single_choice, yes_no
from .base import MAX_OPTIONS, Kind, Row

KINDS: tuple[Kind, ...] = (yes_no.KIND, single_choice.KIND, multi_select.KIND, numeric.KIND, ordinal.KIND)
BY_NAME = {kind.name: kind for kind in KINDS}
NAMES = [kind.name for kind in KINDS]  # the API schema's enum
CHOICES = [(kind.name, kind.label) for kind in KINDS]


def find(name: str) -> Kind | None:
    """The kind named `name`, or None (a name that is no kind: its field's own validation words it)."""
    return BY_NAME.get(name)


def named(name: str) -> Kind:
    """The kind named `name` (KeyError if none: the database allows only these)."""
    return BY_NAME[name]


def kind_of(question: Any) -> Kind:
    """A question's kind (a Question, a planned question, anything with `.kind`)."""
    return BY_NAME[question.kind]


def of_mechanism(name: str) -> Kind:
    """The first kind `name` fits: the one its figures are worked out for (krr, sue and oue give the same
    figures for single choice, ordinal levels and numeric bins, which depend on k only)."""
    return next(kind for kind in KINDS if kind.fits(name))


def kinds_config() -> dict[str, dict[str, object]]:
    """What the admin's script needs per kind (`Kind.boxes`)."""
    return {kind.name: kind.boxes() for kind in KINDS}


def error_field(name: str) -> str:
    """The admin field an error building mechanism `name` is about: its parameter (q or epsilon), the
    mechanism itself when it is not randomized, or the at-most limit of a mechanism for many ticks."""
    mechanism = ldp.MECHANISMS.get(name)
    if mechanism is None:
        return "epsilon"
    if not mechanism.randomized:
        return "mechanism_name"
    if mechanism.parameter == "q":
        return "q"
    return "at_most" if of_mechanism(name).many else "epsilon"


def build_mechanism(name: str, kind: str, q: QValue | None, epsilon: float | None, options: int, *,
                    scale: Scale | None = None, at_most: int | None = None) -> ldp.Mechanism:
    """A question's mechanism from its fields (`Kind.build`; ValueError if it cannot be)."""
    found = find(kind)
    if found is None:
        raise ValueError(f"no kind of question is called {kind!r}")
    return found.build(name, q, epsilon, options, scale=scale, at_most=at_most)


__all__ = ["BY_NAME", "CHOICES", "KINDS", "MAX_OPTIONS", "NAMES", "Kind", "Row", "build_mechanism", "error_field",
           "find", "kind_of", "kinds_config", "named", "of_mechanism"]

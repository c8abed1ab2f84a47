"""Every mechanism's name in the reader's language, in one table keyed by the mechanism's name (`ldp.MECHANISMS`).

`choice` is what the admin offers (the name and the kinds it fits), which the privacy statement repeats; `prose`
is the name inside a sentence of the admin's advice ("Lower variance ...: the symmetric unary encoding"), for the
mechanisms that advice names. A new mechanism adds its row here, beside its kind.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Names:
    choice: Promise
    prose: Promise | None = None


NAMES: dict[str, Names] = {
    "qrr": Names(_("q-randomized response (yes/no)")),
    "bitflip": Names(_("Epsilon bit flip (yes/no)")),
    "krr": Names(_("k-ary randomized response (single choice, ordinal levels, numeric bins)"),
                 _("k-ary randomized response")),
    "sue": Names(_("Symmetric unary encoding (single choice, ordinal levels)"), _("the symmetric unary encoding")),
    "oue": Names(_("Optimized unary encoding (single choice, ordinal levels)"), _("the optimized unary encoding")),
    "direct": Names(_("Not randomized (direct)")),
    "multiselect": Names(_("Multi-select bits (multi-select)")),
    "onebit": Names(_("1-bit mean (numeric: the mean)"), _("the 1-bit mean")),
    "dlaplace": Names(_("Discrete Laplace (numeric: the mean)"), _("discrete Laplace")),
    "direct_number": Names(_("Not randomized (direct)")),
}


def choice(name: str) -> str:
    """The mechanism's name as the admin offers it, in the active language."""
    return str(NAMES[name].choice)


def prose(name: str) -> str:
    """The mechanism's name inside a sentence, in the active language (KeyError for one advice never names)."""
    found = NAMES[name].prose
    if found is None:
        raise KeyError(name)
    return str(found)

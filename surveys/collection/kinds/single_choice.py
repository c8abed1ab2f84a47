"""Single choice: one of 2 to 32 options, randomized over them, or sent as given (direct) for covariates."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp

from .base import Kind
from .yes_no import YES_NO_OR_SINGLE_CHOICE


class SingleChoiceKind(Kind):
    name = "single_choice"
    label = gettext_lazy("Single choice")
    mechanisms = ("krr", "sue", "oue", "direct")
    words = ("single-choice questions use k-ary randomized response, a unary encoding, or no randomization "
             "(direct)")
    prefer_not = True

    def mismatch(self, name: str) -> str | None:
        # Only a yes/no mechanism is named as a mismatch here; another kind's mechanism fails to build.
        return YES_NO_OR_SINGLE_CHOICE if name in ldp.YES_NO else None

    def too_few_options(self) -> str:
        return _("A single-choice question needs at least two options, one per line.")

    def needs_options_to_open(self) -> str:
        return _("A single-choice question needs at least two options before its survey can open.")


KIND = SingleChoiceKind()

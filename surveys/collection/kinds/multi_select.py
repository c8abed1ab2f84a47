"""Multi-select: any subset of 2 to 32 options (at most m ticks, exclusive options such as "None of these")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .base import Kind


class MultiSelectKind(Kind):
    name = "multi_select"
    label = gettext_lazy("Multi-select (check all that apply)")
    mechanisms = ("multiselect",)
    words = "multi-select questions use the multi-select bits"
    many = True
    answer = "ticks"
    prefer_not = True

    def too_few_options(self) -> str:
        return _("A multi-select question needs at least two options, one per line.")

    def option_problems(self, question: Any, options: Sequence[Any]) -> list[str]:
        found = []
        if question.at_most is not None and question.at_most >= len(options):
            found.append(_("question %(n)s: its at-most limit (%(m)s) must be below its number of options (%(k)s)")
                         % {"n": question.order, "m": question.at_most, "k": len(options)})
        return found + super().option_problems(question, options)


KIND = MultiSelectKind()

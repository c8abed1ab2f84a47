"""Ordinal: one of 2 to 32 ordered levels, each with a score for the mean score ("Agree = 4"; typed without
scores they are 1, 2, 3...). A level without a score ("Prefer not to say") is left out of the mean score."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .. import scales
from ..scales import Scale
from .base import Kind, Row


class OrdinalKind(Kind):
    name = "ordinal"
    label = gettext_lazy("Ordinal (levels with scores)")
    mechanisms = ("krr", "sue", "oue")
    words = "ordinal questions use k-ary randomized response or a unary encoding over their levels"
    prefer_not = True
    scored = True

    def too_few_options(self) -> str:
        return _("An ordinal question needs at least two levels, one per line.")

    def read_options(self, typed: list[str], scale: Scale | None, errors: dict[str, str]) -> list[Row]:
        parsed = [scales.parse_line(line, "=") for line in typed]
        problems = scales.score_problems([score for _, score in parsed], skipped=0)
        if problems:
            errors["options_text"] = _("Give every level a score (“Agree = 4”) or none (they are then 1, 2, 3…).")
            return []
        if all(score is None for _, score in parsed):
            return [Row(label, Decimal(j)) for j, (label, _score) in enumerate(parsed, start=1)]
        return [Row(label, score) for label, score in parsed]

    def written_options(self, scale: Scale | None, shown: Sequence[Any]) -> list[str]:
        return [f"{o.label} = {scales.exact(o.score)}" if o.score is not None else o.label for o in shown]

    def option_problems(self, question: Any, options: Sequence[Any]) -> list[str]:
        found = super().option_problems(question, options)
        if all(o.score is None for o in options):
            found.append(_("question %(n)s: its levels need scores") % {"n": question.order})
        return found


KIND = OrdinalKind()

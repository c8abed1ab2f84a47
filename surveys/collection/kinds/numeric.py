"""Numeric: a number on the grid lo..hi by step, asked for its mean (1-bit mean, discrete Laplace) or counted
in 2 to 32 bins the admin sets by their lower edges (k-ary randomized response, a histogram).

A numeric question's mode is its mechanism: only the histogram has options (its bins), typed one per line
as a lower edge, optionally with a label ("18" or "18: Adults"; without one the label is the bin's range).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .. import scales
from ..scales import Scale
from .base import Kind, Row


class Numeric(Kind):
    name = "numeric"
    label = gettext_lazy("Numeric (a number from lo to hi)")
    mechanisms = ("onebit", "dlaplace", "krr")
    words = ("numeric questions use the 1-bit mean or discrete Laplace (for the mean), or k-ary randomized "
             "response over bins (a histogram)")
    options = "krr"  # bins
    scale = True
    answer = "number"

    def no_options(self) -> str:
        return _("Leave the options empty for a numeric question asked for its mean (for bins, choose k-ary "
                 "randomized response).")

    def too_few_options(self) -> str:
        return _("A numeric question with bins needs at least two bins, one lower edge per line.")

    def read_options(self, typed: list[str], scale: Scale | None, errors: dict[str, str]) -> list[Row]:
        parsed = [scales.parse_line(line, ":") for line in typed]
        if scale is None:  # lo, hi or step is wrong: their own errors say so
            return [Row(label or line) for line, (label, _edge) in zip(typed, parsed, strict=True)]
        edges = [edge for _, edge in parsed]
        problems = scales.bin_problems(scale, edges)
        if problems:
            errors["options_text"] = " ".join(problems)
            return []
        known = [edge for edge in edges if edge is not None]
        return [Row(label or scales.bin_label(scale, known, j), None, known[j]) for j, (label, _) in enumerate(parsed)]

    def written_options(self, scale: Scale | None, shown: Sequence[Any]) -> list[str]:
        edges = [o.lower for o in shown if o.lower is not None]
        return [_bin_line(scale, edges, j, o) for j, o in enumerate(shown)]

    def option_problems(self, question: Any, options: Sequence[Any]) -> list[str]:
        scale = question.scale()
        found = [] if scale is None else [
            _("question %(n)s: %(problem)s") % {"n": question.order, "problem": problem}
            for problem in scales.bin_problems(scale, [o.lower and scales.exact(o.lower) for o in options])]
        return found + super().option_problems(question, options)


def _bin_line(scale: Scale | None, edges: list[Decimal], j: int, option: Any) -> str:
    if option.lower is None:
        return option.label
    edge = scales.exact(option.lower)
    automatic = (scale is not None and j < len(edges)
                 and option.label == scales.bin_label(scale, [scales.exact(e) for e in edges], j))
    return str(edge) if automatic else f"{edge}: {option.label}"


KIND = Numeric()

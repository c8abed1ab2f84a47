"""Numeric: a number on the grid lo..hi by step, asked for its mean (1-bit mean, discrete Laplace) or counted
in 2 to 32 bins the admin sets by their lower edges (k-ary randomized response, a histogram), or asked directly
(direct_number: not randomized, the number sent as given, such as age in years for covariates), with its exact
mean and the bins the admin sets for break-downs.

A numeric question's mode is its mechanism: the histogram and the direct number have options (their bins),
typed one per line as a lower edge, optionally with a label ("18" or "18: Adults"; without one the label is the
bin's range). A direct number's browser sends the number's grid index, never its bin: the bins are the analysis's,
optional (without them its figures are its mean, and break-downs do not offer it) and never translated.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp
from ldp.mechanisms.exact_q import QValue
from ldp.mechanisms.fields import build

from .. import scales
from ..scales import Scale
from .base import Kind, Row


class NumericKind(Kind):
    name = "numeric"
    label = gettext_lazy("Numeric (a number from lo to hi)")
    mechanisms = ("onebit", "dlaplace", "krr", "direct_number")
    words = ("numeric questions use the 1-bit mean or discrete Laplace (for the mean), k-ary randomized "
             "response over bins (a histogram), or no randomization (direct: the number as given, bins optional)")
    # The modes with options (their bins: a histogram's, or a direct number's for break-downs); `has_options` and
    # `boxes` say so, in place of the one mechanism `options` can name.
    binned = ("krr", "direct_number")
    optional = ("direct_number",)  # bins it may do without (`options_optional`)
    scale = True
    answer = "number"

    def has_options(self, name: str) -> bool:
        return name in self.binned

    def options_optional(self, name: str) -> bool:
        """A direct number needs no bins: its mean reads the numbers; bins, if set, are its break-downs'."""
        return name in self.optional

    def respondents_see_options(self, name: str) -> bool:
        """A histogram's bins are the respondents' answers; a direct number's, never seen, need no translation."""
        return self.has_options(name) and name not in self.optional

    def boxes(self) -> dict[str, object]:
        return {**super().boxes(), "options": list(self.binned)}

    def relatable(self, mechanism: ldp.Mechanism) -> bool:
        """A randomized mean has no answers to count; a direct number relates in its bins."""
        return mechanism.shape not in (ldp.Shape.MEAN_BIT, ldp.Shape.LAPLACE)

    def build(self, name: str, q: QValue | None, epsilon: float | None, options: int, *,
              scale: Scale | None = None, at_most: int | None = None) -> ldp.Mechanism:
        mechanism = ldp.MECHANISMS.get(name)
        if mechanism is None or mechanism.shape is not ldp.Shape.NUMBER:
            return super().build(name, q, epsilon, options, scale=scale, at_most=at_most)
        if q is not None or epsilon is not None:  # a direct number: its grid only
            raise ValueError("a direct question takes neither q nor epsilon: it is not randomized")
        if scale is None:
            raise ValueError("a numeric question needs lo, hi and step")
        return build(name, lo=scale.lo, hi=scale.hi, step=scale.step)

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


KIND = NumericKind()

"""Number formats for the results pages: undefined values (no reports yet) show as a dash; the decimal
separator is the active language's (surveys.localized)."""

import functools
import math
from collections.abc import Callable
from typing import Any

from django import template
from django.utils.translation import gettext as _

from surveys.localized import point

register = template.Library()
DASH = "–"


def _dash_unless_finite(format_number: Callable[..., str]) -> Callable[..., str]:
    """A filter that shows anything but a finite number (no reports yet: NaN, None) as a dash."""
    @functools.wraps(format_number)
    def formatted(value: Any, *args: Any) -> str:
        if not (isinstance(value, (int, float)) and math.isfinite(value)):
            return DASH
        return format_number(value, *args)
    return formatted


@register.filter
@_dash_unless_finite
def percent(value: float, digits: int | str = 1) -> str:
    """0.1234 -> "12.3%"; a true minus sign, since unbiased estimates can be negative."""
    return point(f"{value * 100:.{int(digits)}f}%".replace("-", "−"))


@register.filter
@_dash_unless_finite
def points(value: float) -> str:
    """A margin (half-width) as "±4.4 points"."""
    return _("±%(margin)s points") % {"margin": point(f"{value * 100:.1f}")}


@register.filter
@_dash_unless_finite
def decimal(value: float, digits: int | str = 4) -> str:
    return point(f"{value:.{int(digits)}f}".replace("-", "−"))


@register.filter
@_dash_unless_finite
def level(value: float) -> str:
    """0.95 -> "95%", 0.98333 -> "98.33%"."""
    return point(f"{value * 100:.2f}".rstrip("0").rstrip(".") + "%")


@register.filter
@_dash_unless_finite
def number(value: float) -> str:
    """A mean or a margin in the question's units: 4 significant digits, a true minus sign."""
    return point(f"{value:.4g}".replace("-", "−"))


@register.filter
@_dash_unless_finite
def plusminus(value: float) -> str:
    """A margin (half-width) in the question's units, as "±2.5"."""
    return point(f"±{value:.3g}")

"""Number formats for the results pages: undefined values (no reports yet) show as a dash."""

import math

from django import template

register = template.Library()
DASH = "–"


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


@register.filter
def percent(value, digits=1):
    """0.1234 -> "12.3%"; a true minus sign, since unbiased estimates can be negative."""
    if not _finite(value):
        return DASH
    return f"{value * 100:.{int(digits)}f}%".replace("-", "−")


@register.filter
def points(value):
    """A margin (half-width) as "±4.4 points"."""
    if not _finite(value):
        return DASH
    return f"±{value * 100:.1f} points"


@register.filter
def decimal(value, digits=4):
    if not _finite(value):
        return DASH
    return f"{value:.{int(digits)}f}".replace("-", "−")


@register.filter
def level(value):
    """0.95 -> "95%", 0.98333 -> "98.33%"."""
    if not _finite(value):
        return DASH
    return f"{value * 100:.2f}".rstrip("0").rstrip(".") + "%"

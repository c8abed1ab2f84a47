"""Number formats for the results pages: undefined values (no reports yet) show as a dash; the decimal
separator is the active language's (surveys.localized). A figure and its interval always share one number
of decimals: percentages one (`percent`), a mean in its units as many as its interval's width calls for
(`figures`)."""

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


SPREAD_DIGITS = 2  # significant digits of a quarter of the interval's width (about a standard error at 95%)
MOST_DECIMALS = 6


def decimals_for(low: float, high: float, *values: float) -> int:
    """Decimals for a figure and its interval, one number for all of them: enough to show a quarter of the
    interval's width (about one standard error at 95%) to SPREAD_DIGITS significant digits, more would be
    noise; without a width (0, undefined), enough for 4 significant digits of the largest value."""
    spread = (high - low) / 4.0
    if math.isfinite(spread) and spread > 0:
        return min(MOST_DECIMALS, max(0, SPREAD_DIGITS - 1 - math.floor(math.log10(spread))))
    largest = max((abs(v) for v in (low, high, *values) if math.isfinite(v) and v != 0), default=1.0)
    return min(MOST_DECIMALS, max(0, 3 - math.floor(math.log10(largest))))


def figures(estimate: float, low: float, high: float, *more: float) -> list[str]:
    """[estimate, low, high, *more] as text with the same number of decimals (`decimals_for`), so a mean reads
    "6.81 (6.22 to 7.40)", never "6.808 (6.22 to 7.396)"; an undefined value is a dash."""
    digits = decimals_for(low, high, estimate)
    return [decimal(value, digits) for value in (estimate, low, high, *more)]


@register.filter
def mean_figures(mean: Any) -> dict[str, str]:
    """An `ldp.MeanEstimate`'s mean, interval ends and standard error, with the same decimals (`figures`)."""
    texts = figures(mean.mean, mean.ci_low, mean.ci_high, mean.std_error)
    return dict(zip(("mean", "ci_low", "ci_high", "std_error"), texts, strict=True))


@register.filter
@_dash_unless_finite
def number(value: float) -> str:
    """A mean or a margin in the question's units: 4 significant digits, a true minus sign."""
    return point(f"{value:.4g}".replace("-", "−"))


@register.filter
@_dash_unless_finite
def p_value(value: float) -> str:
    """A test's p-value as "p = 0.0123", or "p < 0.0001" below what four decimals show."""
    return "p < " + point("0.0001") if value < 0.0001 else "p = " + point(f"{value:.4f}")


@register.filter
@_dash_unless_finite
def plusminus(value: float) -> str:
    """A margin (half-width) in the question's units, as "±2.5"."""
    return point(f"±{value:.3g}")

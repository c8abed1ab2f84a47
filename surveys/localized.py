"""Figures the app formats itself (rounded as each figure needs: up for privacy, to nearest for
estimates) in the active language: only the decimal separator changes, so "12.3%" reads "12,3%" in
Spanish and French, and the digits are those the rounding chose."""

from __future__ import annotations

from django.utils import formats


def point(text: str) -> str:
    """`text`, a number formatted with a decimal point, with the active language's decimal separator.

    >>> from django.utils import translation
    >>> with translation.override("fr"):
    ...     point("12.3%"), point("−0.05")
    ('12,3%', '−0,05')
    >>> point("12.3%")
    '12.3%'
    """
    separator = formats.get_format("DECIMAL_SEPARATOR")
    return text if separator == "." else text.replace(".", separator)

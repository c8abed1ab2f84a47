"""Sharing a survey: its respondent link, and that link as a QR code (SVG made here, so no
third-party request). The admin's survey page, its "opened" message and the results page show
them (templates/collection/_share.html)."""

from __future__ import annotations

from typing import Any

import segno
from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from .models import Series, Survey


def respondent_url(request: HttpRequest, survey: Survey) -> str:
    return request.build_absolute_uri(reverse("collection:respond", args=[survey.slug]))


def series_url(request: HttpRequest, series: Series) -> str:
    """The series' stable link, which opens whichever wave is current (surveys.collection.waves.current)."""
    return request.build_absolute_uri(reverse("collection:current-wave", args=[series.slug]))


def qr_svg(url: str) -> SafeString:
    """The URL as an inline SVG QR code (error correction M), black on white, with a title."""
    svg = segno.make(url, error="m").svg_inline(scale=4, dark="#000", light="#fff", title=f"QR code for {url}")
    return mark_safe(svg)  # noqa: S308 - markup segno generated; the URL inside is escaped by segno


def context(request: HttpRequest, survey: Survey) -> dict[str, str]:
    """What _share.html shows."""
    url = respondent_url(request, survey)
    return {"share_url": url, "share_qr": qr_svg(url)}


def series_context(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    """What _series_link.html shows for a wave of a series: the series and its stable link (nothing otherwise)."""
    if survey.series is None:
        return {}
    return {"wave_series": survey.series, "series_url": series_url(request, survey.series)}

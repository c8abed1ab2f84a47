"""Sharing a survey: its respondent link, and that link as a QR code (SVG made here, so no
third-party request). The admin's survey page, its "opened" message and the results page show
them (templates/collection/_share.html)."""

from __future__ import annotations

import segno
from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from .models import Survey


def respondent_url(request: HttpRequest, survey: Survey) -> str:
    return request.build_absolute_uri(reverse("collection:respond", args=[survey.slug]))


def qr_svg(url: str) -> SafeString:
    """The URL as an inline SVG QR code (error correction M), black on white, with a title."""
    svg = segno.make(url, error="m").svg_inline(scale=4, dark="#000", light="#fff", title=f"QR code for {url}")
    return mark_safe(svg)  # noqa: S308 - markup segno generated; the URL inside is escaped by segno


def context(request: HttpRequest, survey: Survey) -> dict[str, str]:
    """What _share.html shows."""
    url = respondent_url(request, survey)
    return {"share_url": url, "share_qr": qr_svg(url)}

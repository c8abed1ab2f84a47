"""Who may see which survey's results: its assigned researchers, and superusers.

A survey a researcher may not see answers 404, not 403, so its slug reveals nothing.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404

from surveys.collection.models import Survey


def survey_for(user: Any, slug: str) -> Survey:
    """The survey `user` may see under `slug`; Http404 otherwise."""
    return get_object_or_404(Survey.objects.visible_to(user), slug=slug)

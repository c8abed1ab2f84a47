"""What is frozen once a survey has reports: debiasing must use the parameters the reports were made with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models


class FrozenMechanism(ValidationError):
    """The survey has reports: its questions and parameters can no longer change."""


def refuse_if_frozen(obj: Any, model: type[models.Model], fields: tuple[str, ...],
                     survey_of: Callable[[Any], Any]) -> None:
    """Debiasing must use the parameters the reports were made with, so they never change."""
    if obj.pk is None:
        if survey_of(obj).has_reports():
            raise FrozenMechanism("This survey has reports; nothing can be added to it.")
        return
    old = model._default_manager.filter(pk=obj.pk).first()
    if old is None:
        return
    changed = any(getattr(old, name) != getattr(obj, name) for name in fields)
    if changed and (survey_of(old).has_reports() or survey_of(obj).has_reports()):
        raise FrozenMechanism("This survey has reports; its questions and parameters are read-only.")


def refuse_moving_a_wave(survey: Any) -> None:
    """The browser remembered its randomization per series: a wave with reports stays where it is (a survey
    outside any series may become a series' first wave: its browsers remembered nothing)."""
    if survey.pk is None:
        return
    old = type(survey)._default_manager.filter(pk=survey.pk).values("series_id", "wave").first()
    moved = old and old["series_id"] is not None and (old["series_id"], old["wave"]) != (survey.series_id, survey.wave)
    if moved and survey.has_reports():
        raise FrozenMechanism("This survey has reports; its series and wave can no longer change.")

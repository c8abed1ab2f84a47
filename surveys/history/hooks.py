"""ModelAdmin mixin: every save and delete through the admin records the configuration of the
surveys it touches, before and after (surveys.history.recorder), in the admin's transaction."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Model, QuerySet
from django.http import HttpRequest

from . import recorder


class RecordsConfigurationChanges:
    def surveys_of(self, obj: Any) -> list[int | None]:
        """The ids of the surveys `obj` belongs to, as stored (before a save) and as it is now."""
        raise NotImplementedError

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        found = recorder.of_request(request)
        for survey_id in self.surveys_of(obj):
            found.watch(survey_id)
        super().save_model(request, obj, form, change)  # type: ignore[misc]
        for survey_id in self.surveys_of(obj):
            found.watch_new(survey_id)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)  # type: ignore[misc]
        recorder.of_request(request).record()

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        found = self._watch(request, [obj])
        super().delete_model(request, obj)  # type: ignore[misc]
        found.record()

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        found = self._watch(request, queryset)
        super().delete_queryset(request, queryset)  # type: ignore[misc]
        found.record()

    def _watch(self, request: HttpRequest, objects: Iterable[Any]) -> recorder.Recording:
        found = recorder.of_request(request)
        for obj in objects:
            for survey_id in self.surveys_of(obj):
                found.watch(survey_id)
        return found

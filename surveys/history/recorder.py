"""Recording configuration changes: snapshot the surveys a change touches before it, and after it
write one ConfigurationChange per survey that differs (in the same transaction, if any).

Fed by the admin's save and delete hooks (surveys.history.hooks) and by the verbs the admin
runs (open, close, purge), rather than by model signals: the admin saves a survey in several
steps (the survey row, its questions moved to spare orders with QuerySet.update, which sends
no signal, then saved, options deleted and made again), so per-row signals would record
intermediate states, miss reorders and show a relabelled option as a deletion and an addition.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.http import HttpRequest

from . import snapshot
from .models import ConfigurationChange


class Recording:
    def __init__(self, user: Any = None, who: str = "") -> None:
        self.user = user if user is not None and user.is_authenticated else None
        self.who = self.user.get_username() if self.user is not None else who
        self.before: dict[int, snapshot.Snapshot | None] = {}

    def watch(self, survey_id: int | None) -> None:
        """Remember the survey as it is now (the first time it is watched)."""
        if survey_id is not None and survey_id not in self.before:
            self.before[survey_id] = snapshot.current(survey_id)

    def watch_new(self, survey_id: int | None) -> None:
        """A survey that did not exist before this change."""
        if survey_id is not None:
            self.before.setdefault(survey_id, None)

    def record(self) -> list[ConfigurationChange]:
        made = []
        for survey_id, before in self.before.items():
            after = snapshot.current(survey_id)
            found = snapshot.changes(before, after)
            if found:
                action = (ConfigurationChange.Action.CREATED if before is None
                          else ConfigurationChange.Action.DELETED if after is None
                          else ConfigurationChange.Action.CHANGED)
                made.append(ConfigurationChange.objects.create(
                    user=self.user, who=self.who, survey_id=survey_id, action=action, changes=found,
                    survey=snapshot.title(after or before)[:260]))  # type: ignore[arg-type]  # one is set
        self.before.clear()
        return made


def of_request(request: HttpRequest) -> Recording:
    """The recording of this admin request (one for its save hooks to share)."""
    if not hasattr(request, "_configuration_recording"):
        request._configuration_recording = Recording(request.user)  # type: ignore[attr-defined]
    return request._configuration_recording  # type: ignore[attr-defined]


@contextmanager
def recording(user: Any, *survey_ids: int, who: str = "") -> Iterator[Recording]:
    """Record what the block changes in these surveys (nothing if it raises)."""
    found = Recording(user, who)
    for survey_id in survey_ids:
        found.watch(survey_id)
    yield found
    found.record()

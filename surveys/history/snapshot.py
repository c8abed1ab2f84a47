"""A survey's whole configuration as comparable text, and the field-level difference of two.

Snapshots are taken before and after a change (surveys.history.recorder), so a change made in
several steps (the admin saves the survey, moves its questions with QuerySet.update, replaces
options) is recorded as what it did in the end, field by field.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from django.db import models
from django.utils.translation import gettext as _

from surveys.collection.models import Question, Survey

SURVEY_FIELDS = ("title", "slug", "description", "status", "opens_at", "closes_at", "access", "epsilon_budget")
QUESTION_FIELDS = ("order", "text", "kind", "mechanism_name", "q", "epsilon")

Snapshot = dict[str, Any]  # {"survey": {field: text}, "questions": {id: {field: text}}}


def of(survey_id: int) -> Snapshot | None:
    """The survey's configuration now, or None if there is no such survey."""
    survey = Survey.objects.filter(pk=survey_id).prefetch_related("researchers", "questions__options").first()
    if survey is None:
        return None
    fields = {name: _text(survey, name) for name in SURVEY_FIELDS}
    fields["researchers"] = ", ".join(sorted(user.get_username() for user in survey.researchers.all()))
    questions = {}
    for question in survey.questions.all():
        questions[str(question.pk)] = {name: _text(question, name) for name in QUESTION_FIELDS}
        labels = [option.label for option in sorted(question.options.all(), key=lambda option: option.order)]
        questions[str(question.pk)]["options"] = " | ".join(labels)
    return {"survey": fields, "questions": questions}


def title(snapshot: Snapshot) -> str:
    return f"{snapshot['survey']['title']} ({snapshot['survey']['slug']})"


def changes(before: Snapshot | None, after: Snapshot | None) -> list[dict[str, str | None]]:
    """Every field whose value differs: [{"field": label, "before": text or None, "after": ...}]."""
    found = _differences(_label_survey, (before or {}).get("survey", {}), (after or {}).get("survey", {}))
    old, new = (before or {}).get("questions", {}), (after or {}).get("questions", {})
    for key in sorted(old.keys() | new.keys(), key=lambda k: (int((new.get(k) or old[k])["order"]), int(k))):
        shown = new.get(key) or old[key]
        name = _("Question %(id)s “%(text)s”") % {"id": key, "text": shown["text"]}
        found += _differences(lambda field, name=name: f"{name}: {_label_question(field)}",
                              old.get(key, {}), new.get(key, {}))
    return found


def _differences(label: Any, old: dict[str, str], new: dict[str, str]) -> list[dict[str, str | None]]:
    fields = list(dict.fromkeys([*old, *new]))
    return [{"field": label(field), "before": old.get(field), "after": new.get(field)}
            for field in fields if old.get(field) != new.get(field)]


def _label_survey(field: str) -> str:
    return _("researchers") if field == "researchers" else str(_field(Survey, field).verbose_name)


def _label_question(field: str) -> str:
    return _("options") if field == "options" else str(_field(Question, field).verbose_name)


def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    return cast("models.Field[Any, Any]", model._meta.get_field(name))


def _text(obj: models.Model, name: str) -> str:
    """A field's value as text: a choice by its label, a time in ISO 8601, nothing as ""."""
    value = getattr(obj, name)
    if value is None:
        return ""
    if _field(type(obj), name).choices:
        return str(getattr(obj, f"get_{name}_display")())
    return value.isoformat() if isinstance(value, datetime) else str(value)

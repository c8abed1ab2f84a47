"""A survey's whole configuration as comparable text, and the field-level difference of two.

Snapshots are taken before and after a change (surveys.history.recorder), so a change made in
several steps (the admin saves the survey, moves its questions with QuerySet.update, replaces
options) is recorded as what it did in the end, field by field.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from typing import Any, cast

from django.core.exceptions import ObjectDoesNotExist
from django.db import models
from django.utils.translation import gettext as _

from ldp.mechanisms import exact_q
from surveys.collection.models import Question, Survey

SURVEY_FIELDS = ("title", "slug", "description", "language", "consent", "status", "opens_at", "closes_at", "access",
                 "epsilon_budget")
# The confidence sequences' plan (set at Open, re-planned with a reason): absent while blank, so the snapshots of
# surveys that never had one stay as they were.
PLAN_FIELDS = ("planned_size", "planned_confidence", "replanned_at", "replan_reason",
               "retention_days", "purged_at")  # retention (surveys.collection.retention), absent while blank too
TRANSLATED_FIELDS = ("title", "description", "consent")  # a survey's texts in another language: "title:es"
QUESTION_FIELDS = ("order", "text", "kind", "mechanism_name", "q", "epsilon")

Snapshot = dict[str, Any]  # {"survey": {field: text}, "questions": {id: {field: text}}}


def current(survey_id: int) -> Snapshot | None:
    """The survey's configuration now, or None if there is no such survey."""
    survey = Survey.objects.filter(pk=survey_id).prefetch_related(
        "researchers", "translations", "questions__translations", "questions__options__translations",
        "questions__population_margin__shares").first()
    if survey is None:
        return None
    fields = {name: _text(survey, name) for name in SURVEY_FIELDS}
    fields.update({name: text for name in PLAN_FIELDS if (text := _text(survey, name))})
    fields["researchers"] = ", ".join(sorted(user.get_username() for user in survey.researchers.all()))
    for row in survey.translations.all():
        fields.update({f"{name}:{row.language}": getattr(row, name) for name in TRANSLATED_FIELDS})
    questions = {}
    for question in survey.questions.all():
        questions[str(question.pk)] = {name: _text(question, name) for name in QUESTION_FIELDS}
        options = sorted(question.options.all(), key=lambda option: option.order)
        questions[str(question.pk)]["options"] = " | ".join(option.label for option in options)
        exclusive = [option.label for option in options if option.exclusive]
        if exclusive:  # absent when none: the snapshots of other questions stay as they were
            questions[str(question.pk)]["exclusive"] = " | ".join(exclusive)
        if question.name:  # absent when blank, as "exclusive": its column's name in the exports
            questions[str(question.pk)]["name"] = question.name
        if question.relevant:  # absent when blank, as "exclusive": its skip logic
            questions[str(question.pk)]["relevant"] = question.relevant
        questions[str(question.pk)].update(_translated(question, options))
        margin = _margin(question, options)
        if margin:  # absent when none, as "exclusive"
            questions[str(question.pk)]["margin"] = margin
    return {"survey": fields, "questions": questions}


def _margin(question: Question, options: list[Any]) -> str:
    """The population margin its weights are raked to (surveys.aggregation.weighting.margins): "source: label share |
    ...",
    read through the relation's name (the results app depends on this one, not the other way round)."""
    try:
        margin = question.population_margin
    except ObjectDoesNotExist:
        return ""
    shares = {share.option_id: share.share for share in margin.shares.all()}
    return f"{margin.source}: " + " | ".join(f"{option.label} {shares.get(option.pk, '-')}" for option in options)


def _translated(question: Question, options: list[Any]) -> dict[str, str]:
    """A question's texts in other languages: "text:es", and its labels in each as "options:es"."""
    found = {f"text:{t.language}": t.text for t in question.translations.all()}
    labels: dict[str, dict[int, str]] = {}
    for option in options:
        for t in option.translations.all():
            labels.setdefault(t.language, {})[option.pk] = t.label
    for language, by_option in labels.items():
        found[f"options:{language}"] = " | ".join(by_option.get(option.pk, "") for option in options)
    return found


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
    field, language = _language_of(field)
    found = _("researchers") if field == "researchers" else str(_field(Survey, field).verbose_name)
    return f"{found} ({language})" if language else found


def _label_question(field: str) -> str:
    field, language = _language_of(field)
    # none of them a field of the question
    own = {"options": _("options"), "exclusive": _("exclusive options"), "margin": _("population margin")}
    found = own[field] if field in own else str(_field(Question, field).verbose_name)
    return f"{found} ({language})" if language else found


def _language_of(field: str) -> tuple[str, str]:
    """("title", "es") from "title:es"; ("title", "") from "title"."""
    name, _colon, language = field.partition(":")
    return name, language


def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    return cast("models.Field[Any, Any]", model._meta.get_field(name))


def _text(obj: models.Model, name: str) -> str:
    """A field's value as text: a choice by its label, a time in ISO 8601, q exactly as typed ("2/3"), nothing
    as ""."""
    value = getattr(obj, name)
    if value is None:
        return ""
    if _field(type(obj), name).choices:
        return str(getattr(obj, f"get_{name}_display")())
    if isinstance(value, Fraction):
        return exact_q.text(value)
    return value.isoformat() if isinstance(value, datetime) else str(value)

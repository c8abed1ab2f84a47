"""Waves: running a survey again as the next wave of its series.

A new wave is a draft copy of the survey's definition (questions, mechanisms, options, texts, languages,
consent, researchers, the population margins its weights are raked to), with its own link and dates and
nothing of the reports. A survey not yet in a series starts one, as its wave 1. The copy keeps each question's
lineage (the same question in every wave), and in a series that remembers randomization gives each question
that can remember one a permanent layer: its own, or the question's own parameter, so that all waves together
with an unchanged answer cost what one wave cost before.

The series' stable link opens its current wave (`current`): the wave accepting responses now with the highest
number (waves are numbered in the order they are made, so the newest of those open). With none accepting, the
link says so as a closed survey's link does: the open wave that opens soonest ("not yet"), else the newest wave
published; a series with no published wave is not found, as a draft's link is not.

Opening a wave leaves the earlier ones as they are: the admin offers to close those still open in the same step
(`still_open_before`), and says which stay open.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from django.db import models, transaction
from django.db.models import Max
from django.utils import timezone

from .models import Option, Question, Series, Survey
from .models.conditions import REMEMBERED_BY
from .models.series import free_slug

M = TypeVar("M", bound=models.Model)

SLUG_LENGTH = Survey._meta.get_field("slug").max_length or 50


@transaction.atomic
def run_again(given: Survey, remembered: bool | None = None) -> Survey:
    """The next wave of `given`'s series, a draft (one transaction: all of it or nothing). A survey in no series starts
    one that remembers randomization or not as `remembered` says (the admin chooses; None: the series' default); a
    series that exists keeps its own (ValueError when `remembered` says otherwise)."""
    survey = Survey.objects.select_for_update().get(pk=given.pk)
    if survey.series is not None and remembered is not None and remembered != survey.series.remembered:
        raise ValueError("the series already says whether it remembers randomization")
    if survey.series is None:
        chosen = {} if remembered is None else {"remembered": remembered}
        survey.series = Series.objects.create(title=survey.title, slug=free_slug(_base(survey.slug)), **chosen)
        survey.wave = 1
        survey.save(update_fields=["series", "wave"])
    waves = Survey.objects.select_for_update().filter(series=survey.series)
    number = (waves.aggregate(last=Max("wave"))["last"] or 0) + 1
    # The planned size carries over (chosen before this wave's reports); the last wave's re-plan does not.
    wave = _copy(survey, slug=_free_slug(survey.slug, number), wave=number, status=Survey.Status.DRAFT,
                 opens_at=None, closes_at=None, replanned_at=None, replan_reason="")
    wave.researchers.set(survey.researchers.all())
    for row in survey.translations.all():
        _copy(row, survey=wave)
    for question in survey.questions.prefetch_related("translations", "options__translations"):
        _copy_question(question, wave, survey.series.remembered)
    given.series, given.wave = survey.series, survey.wave
    return wave


def _copy_question(question: Question, wave: Survey, remembered: bool) -> None:
    new = _copy(question, survey=wave, **permanent_layer(question, remembered))
    for text in question.translations.all():
        _copy(text, question=new)
    options = {}
    for option in question.options.all():
        options[option.pk] = _copy(option, question=new)
        for label in option.translations.all():
            _copy(label, option=options[option.pk])
    _copy_margin(question, new, options)


def _copy_margin(question: Question, new: Question, options: dict[int, Option]) -> None:
    """The population's shares a direct question is weighted to (a census table outlives a wave), so that each wave
    is weighted as the one before it was until a researcher enters newer ones."""
    from surveys.aggregation.models import PopulationMargin  # results depend on collection, not the other way round

    for margin in PopulationMargin.objects.filter(question=question).prefetch_related("shares"):
        copied = _copy(margin, question=new)
        for share in margin.shares.all():
            _copy(share, margin=copied, option=options[share.option_id])


def permanent_layer(question: Question, remembered: bool) -> dict[str, object]:
    """The question's permanent layer as it is, or its own parameter when it can remember one and has none."""
    if not remembered or question.has_permanent_layer():
        return {}
    if question.mechanism_name in REMEMBERED_BY["q"]:
        return {"permanent_q": question.q}
    if question.mechanism_name in REMEMBERED_BY["epsilon"]:
        return {"permanent_epsilon": question.epsilon}
    return {}


def _copy(row: M, **changes: object) -> M:
    """A new row with every field of `row` (so a field added later is copied too) but its key and `changes`."""
    new = copy.copy(row)
    new.pk = None
    new._state = copy.copy(row._state)
    new._state.adding = True
    new._state.fields_cache = {}
    for name, value in changes.items():
        setattr(new, name, value)
    new.save(force_insert=True)
    return new


def _free_slug(slug: str, number: int) -> str:
    """`<slug>-wave-<n>` (a wave's own slug loses its number first), shortened to fit, made unique."""
    base = _base(slug)
    suffix = f"-wave-{number}"
    found = base[:SLUG_LENGTH - len(suffix)] + suffix
    extra = 1
    while Survey.objects.filter(slug=found).exists():
        extra += 1
        tail = f"{suffix}-{extra}"
        found = base[:SLUG_LENGTH - len(tail)] + tail
    return found


def _base(slug: str) -> str:
    return re.sub(r"-wave-\d+$", "", slug)


def still_open_before(survey: Survey, now: datetime | None = None) -> list[Survey]:
    """The earlier waves of `survey`'s series still open for responses, now or from a date to come: a newer wave
    opened beside them leaves them answerable by their own links (the series' link leads to the newest only)."""
    if survey.series_id is None or survey.wave is None:
        return []
    now = now or timezone.now()
    found = Survey.objects.filter(series_id=survey.series_id, wave__lt=survey.wave, status=Survey.Status.OPEN)
    return [wave for wave in found.order_by("wave") if wave.is_accepting(now) or wave.opens_later(now)]


@dataclass(frozen=True)
class Current:
    """Where a series' stable link leads: `survey` is accepting responses when `accepting`; else it is the wave
    whose closed page is shown."""

    survey: Survey
    accepting: bool


def current(series: Series, now: datetime | None = None) -> Current | None:
    """The series' current wave (see the module's docstring); None when no wave is published."""
    now = now or timezone.now()
    published = list(Survey.objects.published().filter(series=series).order_by("-wave"))
    accepting = next((wave for wave in published if wave.is_accepting(now)), None)
    if accepting is not None:
        return Current(accepting, accepting=True)
    coming = sorted((wave for wave in published if wave.opens_later(now)),
                    key=lambda wave: (wave.opens_at, -(wave.wave or 0)))
    if coming:
        return Current(coming[0], accepting=False)
    return Current(published[0], accepting=False) if published else None

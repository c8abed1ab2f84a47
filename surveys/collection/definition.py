"""The public definition of a survey: what the respondent's browser needs, nothing more, with its
texts in one of the survey's languages (the mechanisms and the version are the same in all)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

from django.db.models import Q

from ldp.mechanisms.remembered import instantaneous

from . import integrity, kinds, languages, plan
from .models import Option, Survey
from .plan import PlannedQuestion, Remembering


@dataclass(frozen=True)
class Definition:
    survey: Survey
    plan: plan.SurveyPlan
    texts: languages.Texts

    @property
    def accepting_responses(self) -> bool:
        return self.survey.is_accepting()

    @property
    def client_code(self) -> list[dict[str, str]]:
        return integrity.published()

    @cached_property
    def questions(self) -> tuple[PlannedQuestion, ...]:
        exclusive, remembered = exclusive_of(self.survey), remembered_of(self.survey)
        # A remembered question's mechanism here is what the browser draws each wave, its instantaneous layer; the
        # permanent layer is published beside it (`remembered`).
        return tuple(dataclasses.replace(question, mechanism=instantaneous(question.mechanism),
                                         exclusive=exclusive.get(question.id, ()),
                                         remembered=remembered.get(question.id))
                     for question in languages.localized(self.plan.questions, self.texts))

    @property
    def series(self) -> dict[str, object] | None:
        """The series this survey is a wave of (what the browser keys its remembered layers by), or None."""
        series = self.survey.series
        if series is None:
            return None
        return {"id": series.pk, "wave": self.survey.wave, "remembered": series.remembered}


MANY = [kind.name for kind in kinds.KINDS if kind.many]  # the kinds with exclusive options


def exclusive_of(survey: Survey) -> dict[int, tuple[int, ...]]:
    """Each multi-select question's exclusive options as indexes in report order (one query)."""
    found: dict[int, list[bool]] = {}
    for question_id, exclusive in (Option.objects.filter(question__survey=survey, question__kind__in=MANY)
                                   .order_by("question_id", "order").values_list("question_id", "exclusive")):
        found.setdefault(question_id, []).append(exclusive)
    return {pk: tuple(j for j, flag in enumerate(flags) if flag) for pk, flags in found.items() if any(flags)}


def read(survey: Survey, language: str | None = None) -> Definition:
    """In `language` (one the survey offers; default: its own)."""
    return Definition(survey, plan.of(survey), languages.texts(survey, language or survey.language))


def remembered_of(survey: Survey) -> dict[int, Remembering]:
    """The questions that remember their randomization, by id: those with a permanent layer, in a wave of a
    series that remembers."""
    if not survey.remembers():
        return {}
    found = {}
    for question in survey.questions.filter(Q(permanent_q__isnull=False) | Q(permanent_epsilon__isnull=False)):
        question.survey = survey  # read once
        layers = question.remembered()
        if layers is not None:
            found[question.pk] = Remembering(str(question.lineage), layers)
    return found

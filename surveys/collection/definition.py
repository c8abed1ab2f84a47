"""The public definition of a survey: what the respondent's browser needs, nothing more, with its
texts in one of the survey's languages (the mechanisms and the version are the same in all)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from . import integrity, languages, plan
from .models import Survey
from .plan import PlannedQuestion


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
        return languages.localized(self.plan.questions, self.texts)


def of(survey: Survey, language: str | None = None) -> Definition:
    """In `language` (one the survey offers; default: its own)."""
    return Definition(survey, plan.of(survey), languages.texts(survey, language or survey.language))

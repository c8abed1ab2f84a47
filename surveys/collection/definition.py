"""The public definition of a survey: what the respondent's browser needs, nothing more."""

from __future__ import annotations

from dataclasses import dataclass

from . import integrity, plan
from .models import Survey


@dataclass(frozen=True)
class Definition:
    survey: Survey
    plan: plan.SurveyPlan

    @property
    def accepting_responses(self) -> bool:
        return self.survey.is_accepting()

    @property
    def client_code(self) -> list[dict[str, str]]:
        return integrity.published()


def of(survey: Survey) -> Definition:
    return Definition(survey, plan.of(survey))

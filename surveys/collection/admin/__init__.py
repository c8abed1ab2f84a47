"""Survey configuration in the Django admin (surveys and their questions)."""

from .questions import QuestionAdmin
from .survey import SurveyAdmin

__all__ = ["QuestionAdmin", "SurveyAdmin"]

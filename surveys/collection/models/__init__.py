"""The collection app's models: survey definitions (`survey`) and what respondents send (`reports`)."""

from ..kinds import MAX_OPTIONS, build_mechanism
from .cells import CellKey, CellTally, CellWatch
from .reports import (
    REPORTS_BY_QUESTION,
    TALLY_N_SLOT,
    TALLY_SHARDS,
    Invitation,
    PairCounting,
    PairTally,
    PairWatch,
    Report,
    Response,
    Tally,
)
from .series import Series
from .survey import YES_NO_LABELS, FrozenMechanism, Option, Question, Survey, SurveyQuerySet
from .translations import OptionTranslation, QuestionTranslation, SurveyTranslation

__all__ = [
    "MAX_OPTIONS", "REPORTS_BY_QUESTION", "TALLY_N_SLOT", "TALLY_SHARDS", "YES_NO_LABELS",
    "CellKey", "CellTally", "CellWatch",
    "FrozenMechanism", "Invitation", "Option", "OptionTranslation", "PairCounting", "PairTally", "PairWatch",
    "Question", "QuestionTranslation", "Report",
    "Response", "Series", "Survey", "SurveyQuerySet", "SurveyTranslation", "Tally",
    "build_mechanism",
]

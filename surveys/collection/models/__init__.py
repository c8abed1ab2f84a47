"""The collection app's models: survey definitions (`survey`) and what respondents send (`reports`)."""

from .reports import REPORTS_BY_QUESTION, TALLY_N_SLOT, TALLY_SHARDS, Invitation, Report, Response, Tally
from .survey import (
    MAX_OPTIONS,
    YES_NO_LABELS,
    FrozenMechanism,
    Option,
    Question,
    Survey,
    SurveyQuerySet,
    build_mechanism,
)

__all__ = [
    "MAX_OPTIONS", "REPORTS_BY_QUESTION", "TALLY_N_SLOT", "TALLY_SHARDS", "YES_NO_LABELS", "FrozenMechanism",
    "Invitation", "Option", "Question", "Report", "Response", "Survey", "SurveyQuerySet", "Tally", "build_mechanism",
]

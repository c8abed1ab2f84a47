"""Report exports without the direct columns, which single respondents out: `?direct=omit` on reports.csv, .json, .dta
and .sav leaves
out every question sent as given (its answers are stored as given and can single a respondent out:
surveys.aggregation.privacy.uniqueness), and the weight column with them (a weight is a function of the direct answers
it
is raked on, so it would carry their combination). The one place the parameter is read and what it means: the view
turns it into the prepared export's variant, the writers and the preparation take the export's plan from it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils.translation import gettext as _

from surveys.collection.models import Response, Survey
from surveys.collection.plan import SurveyPlan

from .. import params

PARAMETER = "direct"
OMIT = "direct=omit"  # the prepared export's variant; "" keeps them (the default)
CHOICES = {"keep": "", "omit": OMIT}


def variant(query: Any) -> str:
    """The variant `?direct=` asks for: keep (default) or omit; a 400 naming `direct` otherwise."""
    asked = query.get(PARAMETER, "keep")
    if asked not in CHOICES:
        raise params.BadParameter(PARAMETER, _("“keep” or “omit”"))
    return CHOICES[asked]


def plan_for(current: SurveyPlan, chosen: str) -> SurveyPlan:
    """The plan an export of this variant is written with: without the direct questions when they are omitted."""
    if chosen != OMIT:
        return current
    return replace(current, questions=tuple(question for question in current if question.randomized))


def rows(survey: Survey, current: SurveyPlan, chosen: str) -> int:
    """The rows of a whole export: one per response; without the direct columns, one per response with a report
    of a randomized question (the blocks read only those)."""
    found = Response.objects.filter(survey=survey)
    if chosen == OMIT:
        found = found.filter(reports__question_id__in=[q.id for q in plan_for(current, chosen)]).distinct()
    return found.count()

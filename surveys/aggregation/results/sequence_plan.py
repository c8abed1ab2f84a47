"""A survey's planned size: where its confidence sequences are narrowest, fixed before anyone looks.

A confidence sequence holds at every look for a planned size chosen in advance (`ldp.sequences.fractions`); one that
followed the dashboard's margin box could be chosen after looking (at n = 61 a question read 0-100% planned at
the margin 0.05 and 0-71.3% at 0.5). So the size is stored on the survey: set at Open, the planner's figure
for the default margin at the planned confidence unless the admin typed one, changed after the first report
only with a reason (surveys/collection/replanning.py), both recorded in the configuration history. The sequences'
level is the planned confidence, fixed with the size: the page's confidence box sets the fixed-n intervals and the
planner only. A survey opened before sizes were stored has none: it takes the planner's figure at the defaults
(and the level asked for), and the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from surveys.collection.models import Survey
from surveys.collection.plan import SurveyPlan

from ..params import DEFAULTS
from . import anytime


@dataclass(frozen=True)
class SequencePlan:
    size: int  # the planned size the sequences use
    confidence: float  # the confidence it was figured at
    stored: bool  # False: a survey opened before sizes were stored (the planner's figure at the defaults)
    replanned_at: int | None  # the responses when it was changed after the first report, else None

    def level(self, asked: float) -> float:
        """The sequences' level: a stored plan's confidence, fixed with its size at Open (a level chosen after
        looking is a choice made with the data too); a survey opened before plans were stored fixed neither, and
        its sequences keep the confidence asked for, as they did."""
        return self.confidence if self.stored else asked


def planner_figure(current: SurveyPlan, confidence: float = DEFAULTS.confidence) -> int:
    """The planner's respondents for the default margin at `confidence`, holding at every look: the most any
    question needs (a numeric mean: its fixed-n planner, as `results.needed` says)."""
    return max([anytime.question_needed(q, DEFAULTS.margin, confidence) for q in current] or [1])


def of(survey: Survey, current: SurveyPlan) -> SequencePlan:
    return _plan(current, survey.planned_size, survey.planned_confidence, survey.replanned_at)


def shown(survey: Survey, planned: int | None) -> SequencePlan | None:
    """What the page says of the sequences' plan, given the size they used (None: no sequences shown)."""
    if planned is None:
        return None
    confidence = DEFAULTS.confidence if survey.planned_confidence is None else survey.planned_confidence
    return SequencePlan(planned, confidence, survey.planned_size is not None, survey.replanned_at)


def of_plan(current: SurveyPlan) -> SequencePlan:
    """The stored plan of the survey `current` is the plan of (found by its first question: one query)."""
    stored = None
    if len(current):
        stored = Survey.objects.filter(questions__id=current.questions[0].id).values_list(
            "planned_size", "planned_confidence", "replanned_at").first()
    return _plan(current, *(stored or (None, None, None)))


def _plan(current: SurveyPlan, size: int | None, confidence: float | None, replanned_at: int | None) -> SequencePlan:
    if size is None:
        confidence = DEFAULTS.confidence if confidence is None else confidence
        return SequencePlan(planner_figure(current, confidence), confidence, stored=False, replanned_at=None)
    return SequencePlan(size, DEFAULTS.confidence if confidence is None else confidence, True, replanned_at)

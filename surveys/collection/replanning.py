"""The planned size and confidence of a survey's confidence sequences (surveys.aggregation.results.sequence_plan): set
when the survey opens, changed after the first report only with a reason, which is kept with the number of
responses then.

Intervals valid however often you look hold for a planned size and a level fixed before looking; either changed
after looking is a new plan, and the record says when and why.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from . import plan
from .models import Survey


def plan_at_open(survey: Survey) -> None:
    """Fill a blank planned size with the planner's figure for the default margin at the planned confidence (95%
    if blank too); not saved (open_survey saves it with the status)."""
    from surveys.aggregation.results import sequence_plan  # results depend on collection, not the other way round

    if survey.planned_size is None:
        found = sequence_plan.of(survey, plan.of(survey))
        survey.planned_size, survey.planned_confidence = found.size, found.confidence
    elif survey.planned_confidence is None:
        survey.planned_confidence = sequence_plan.DEFAULTS.confidence


def replan(survey: Survey, size: int | None, confidence: float | None, reason: str) -> None:
    """Give `survey` (not saved: the admin's form saves it) this planned size and confidence (the sequences' level).
    Once it has a report, only with a reason, kept with the number of responses; a stored size or confidence is
    never made blank again."""
    stored = Survey.objects.filter(pk=survey.pk).values_list("planned_size", "planned_confidence").first()
    if stored is None or stored == (size, confidence):
        return
    if stored[0] is not None and size is None:
        raise ValidationError(_("A planned size once set cannot be made blank: type the size to plan for."),
                              code="planned_size")
    if stored[1] is not None and confidence is None:  # blank would hand the sequences' level to the results page
        raise ValidationError(_("A planned confidence once set cannot be made blank: type the level to plan for."),
                              code="planned_confidence")
    responses = survey.responses.count()
    if responses:
        if not reason.strip():
            raise ValidationError(_("The survey has responses: say why its intervals are re-planned (the reason is "
                                    "kept in its history)."), code="reason")
        survey.replan_reason, survey.replanned_at = reason.strip(), responses
    survey.planned_size, survey.planned_confidence = size, confidence

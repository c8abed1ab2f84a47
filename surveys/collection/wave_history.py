"""What a respondent's browser is told of the other waves of its series, to work out what the waves it answered cost
together with this one (static/js/history.js, historyLoss).

The server does not know which waves a browser answered (responses are not linked); the browser does, from what it
keeps (static/js/remember.js, answeredWaves): the waves it answered as waves, and the surveys it answered by their open
link, also before a survey became a series' first wave and had no permanent layers. So every published wave of the
series is described: its number, its link's slug and version (what the browser keeps its marks by) and per question
its lineage (the same question in every wave), the sampler it was randomized with, and the permanent layer's sampler
when that wave remembered it (null when it randomized afresh, as a wave made before its series did).
"""

from __future__ import annotations

from typing import Any

import ldp

from . import plan
from .models import Question, Survey


def questions_of(survey_plan: plan.SurveyPlan, lineages: dict[int, str]) -> list[dict[str, Any]]:
    """Each question of a wave as the browser adds it up: {lineage, sampler, permanent}."""
    found: list[dict[str, Any]] = []
    for question in survey_plan:
        mechanism = question.mechanism
        if (layers := ldp.mechanisms.remembered.layers_of(mechanism)) is not None:
            found.append({"lineage": lineages[question.id], "sampler": layers.instant.sampler(),
                          "permanent": layers.permanent.sampler()})
        else:
            found.append({"lineage": lineages[question.id], "sampler": mechanism.sampler(), "permanent": None})
    return found


def lineages_of(survey_ids: list[int]) -> dict[int, str]:
    """Each question's lineage (as text) by its id, for the questions of these surveys (one query)."""
    rows = Question.objects.filter(survey_id__in=survey_ids).values_list("pk", "lineage")
    return {pk: str(lineage) for pk, lineage in rows}


def other_waves(survey: Survey) -> list[dict[str, Any]]:
    """The series' published waves but `survey`, in order: {wave, slug, version, questions}; none outside a series.
    A wave whose plan cannot be built (no respondent could answer it) is left out."""
    if survey.series_id is None:
        return []
    others = list(Survey.objects.published().filter(series_id=survey.series_id).exclude(pk=survey.pk)
                  .order_by("wave").values_list("pk", "wave", "slug"))
    plans = plan.of_many(pk for pk, *_ in others)
    lineages = lineages_of([pk for pk, *_ in others])
    return [{"wave": wave, "slug": slug, "version": found.version, "questions": questions_of(found, lineages)}
            for pk, wave, slug in others if isinstance(found := plans.get(pk), plan.SurveyPlan)]

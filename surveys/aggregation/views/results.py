"""What the dashboard shows of a survey's own results: the figures with each question's charts, the
arrivals per day, and the options form's choices and links (the other sections have their own modules:
relating, model_page, wave_views, weighting)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.conf import settings

from surveys.collection.models import Survey

from .. import params
from ..charts import bars as charts
from ..charts import numeric as numeric_charts
from ..exports import prepared
from ..params import ResultOptions
from ..results import progress, sequence_plan
from ..results.service import SurveyResults
from ..synthetic import respondents as synthetic


def context(survey: Survey, options: ResultOptions, found: SurveyResults) -> dict[str, Any]:
    coming_along = progress.of(found)
    states = prepared.states(survey)
    shown = sequence_plan.shown(survey, found.planned)
    return {
        # The form shows the options as resolved (the interval in use); links keep only what was asked for.
        "survey": survey, "results": found, "options": found.options,
        "progress": coming_along, "daily_chart": charts.daily_chart(coming_along.window),
        # No chart (its words are the figures) for a question whose estimates are not shown yet.
        "questions": [(question, *numeric_charts.charts_of(question, options.pilot)) for question in found.questions],
        "confidence_choices": sorted({*params.CONFIDENCE_CHOICES, options.confidence}),
        "interval_choices": params.INTERVAL_CHOICES, "interval_label": params.INTERVAL_CHOICES[found.options.fixed],
        "query": options.query(), "prepared": states, "keep_hours": settings.EXPORT_KEEP_HOURS,
        "fixed_query": replace(options, interval=params.FIXED_DEFAULT).query(),
        "anytime_query": replace(options, interval=params.ANYTIME, weighted=False).query(),
        "sequence_plan": shown, "synthetic_quality": synthetic.stated(states["syn"].ready),
        # The confidence box then leaves the sequences alone (their level was fixed at Open): said beside it.
        "sequence_level_fixed": shown is not None and shown.stored,
    }

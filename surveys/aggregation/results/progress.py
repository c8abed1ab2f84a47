"""How a survey is coming along: responses per day, and how far they are from the planner's target.

Responses carry their day only (Response.submitted_on), so per-day counts are one grouped
SELECT over the survey's entries of the (survey, version, day) index, never a scan in Python.
The target is the results service's survey-wide planner (SurveyResults.needed: the most
respondents any question needs for the chosen margin), so the dashboard and the estimates API
speak of one number.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Count
from django.utils import timezone

from surveys.collection.models import Response, Survey

from .service import SurveyResults

WINDOW = 28  # days the chart shows: the last four weeks up to today (or the last response of a closed survey)


@dataclass(frozen=True)
class Day:
    day: datetime.date
    responses: int


@dataclass(frozen=True)
class Progress:
    days: list[Day]  # every day with at least one response, oldest first
    window: list[Day]  # the chart's WINDOW days, zero-filled, oldest first (empty before any response)
    responses: int
    needed: int
    still_needed: int

    @property
    def percent_done(self) -> int:
        """Whole percent of the target reached, at most 100 (100 when the survey has no question)."""
        if self.needed <= 0:
            return 100
        return min(100, self.responses * 100 // self.needed)


def per_day(survey: Survey) -> dict[datetime.date, int]:
    """Responses per day of this survey, from one grouped query. Grouped by version and day, the
    order of the (survey, version, day) index, so that the engine counts along that index alone
    (GROUP BY day would read every row, or sort); the versions are added up here."""
    rows = (Response.objects.filter(survey=survey).order_by().values("mechanism_version", "submitted_on")
            .annotate(responses=Count("*")).values_list("submitted_on", "responses"))
    found: dict[datetime.date, int] = {}
    for day, responses in rows:
        found[day] = found.get(day, 0) + responses
    return dict(sorted(found.items()))


def window(counts: dict[datetime.date, int], end: datetime.date, length: int = WINDOW) -> list[Day]:
    """`length` consecutive days ending at `end`, with zeros where nobody responded."""
    days = [end - datetime.timedelta(days=back) for back in range(length - 1, -1, -1)]
    return [Day(day, counts.get(day, 0)) for day in days]


def of(found: SurveyResults) -> Progress:
    """The progress of the survey whose results are `found`."""
    counts = per_day(found.survey)
    days = [Day(day, n) for day, n in counts.items()]
    if days:
        today = timezone.now().date()
        end = max(today, days[-1].day) if found.survey.status == Survey.Status.OPEN else days[-1].day
        shown = window(counts, end)
    else:
        shown = []
    return Progress(days=days, window=shown, responses=found.responses, needed=found.needed,
                    still_needed=found.still_needed)

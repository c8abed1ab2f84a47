"""Results trust the mechanism version, so that no report is read through a channel it was not made with: every counted
report must have been made
with the survey's current mechanisms.

Freezing a question's mechanism is enforced in `Model.save`; a `QuerySet.update`, a raw edit or a
change in how mechanisms are derived between releases would leave reports made under one channel to
be debiased with another's parameters, silently. The submission service refuses a stale version,
so a mismatch here means such an edit: the results, the cross-tabs and the estimates exports refuse
(`plan.Unavailable`) and name the versions found, until the mechanisms are put back or the
reports are purged. The raw reports exports still serve every report with its `mechanism_version`.

Cost: two index seeks on (survey, mechanism_version) (any version below the current one? above
it?), independent of the number of responses; the per-version counts are read only on a mismatch.
"""

from __future__ import annotations

from django.db.models import Count

from surveys.collection.models import Response, Survey
from surveys.collection.plan import SurveyPlan, Unavailable


def stale_versions(survey: Survey, current: SurveyPlan) -> dict[str, int]:
    """{other version: responses} for the survey's responses not made with `current.version`; {} if none."""
    responses = Response.objects.filter(survey=survey).order_by()
    if not (responses.filter(mechanism_version__lt=current.version).exists()
            or responses.filter(mechanism_version__gt=current.version).exists()):
        return {}
    others = responses.exclude(mechanism_version=current.version).values("mechanism_version")
    return {row["mechanism_version"]: row["n"] for row in others.annotate(n=Count("id")).order_by("mechanism_version")}


def check(survey: Survey, current: SurveyPlan) -> None:
    """Raise `Unavailable` if any response of the survey was made with another mechanism version."""
    stale = stale_versions(survey, current)
    if stale:
        found = ", ".join(f"{count} with version {version}" for version, count in stale.items())
        raise Unavailable(
            f"{sum(stale.values())} responses were made with another mechanism version than the current one "
            f"({current.version}): {found}. Their questions' mechanisms were changed after they were stored, so "
            "debiasing them with the current parameters would be wrong. Restore the mechanisms, or purge those "
            "responses (manage.py purge), before reading results")

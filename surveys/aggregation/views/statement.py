"""The privacy statement page, /results/<slug>/statement/: what a survey collects, stores and reveals, in one
printable document for an ethics board (surveys.aggregation.privacy.statement). The results pages' access rule: the
survey's researchers and superusers; anyone else gets the same 404 as for a survey that does not exist."""

from __future__ import annotations

import math

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from surveys.collection import plan

from .. import access, params, refusing
from ..exports import release
from ..privacy import statement
from .dashboard import researchers_only


@researchers_only
@refusing.answered
def statement_page(request: HttpRequest, slug: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    # The shuffled release's questions, checked as the release checks them (a 400 naming `questions`).
    chosen = release.chosen(plan.of(survey), request.GET.getlist(release.PARAMETER)) \
        if release.PARAMETER in request.GET else None
    found = statement.generated(survey, delta(request.GET), chosen)
    return render(request, "aggregation/statement.html", {"survey": survey, "statement": found,
                                                          "generated": timezone.now()})


def delta(query: dict[str, str]) -> float | None:
    """The release's delta the reader chooses (?delta=1e-8), None for the default; a 400 naming it otherwise."""
    unknown = sorted(set(query) - {"delta", release.PARAMETER})
    if unknown:
        raise params.BadParameter(unknown[0], _("not a parameter of this page"))
    if "delta" not in query:
        return None
    try:
        found = float(query["delta"])
    except ValueError:
        found = math.nan
    if not 0 < found < 1:
        raise params.BadParameter("delta", _("a probability between 0 and 1, such as 1e-8"))
    return found

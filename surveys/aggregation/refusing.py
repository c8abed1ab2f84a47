"""How the researcher pages and downloads answer a refusal, in one place (the API's is surveys.errors):
a survey whose configuration or counts cannot be read (plan.Unavailable) is a 409 page saying why,
a query parameter the results cannot be computed with (params.BadParameter) a 400 in plain text,
which is what a program fetching a download reads.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse

from surveys.collection import plan

from . import access, params

UNAVAILABLE_STATUS = 409
BAD_PARAMETER_STATUS = 400


def answered(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """`view` (of a survey's `slug`), with its refusals answered as pages."""

    @wraps(view)
    def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponseBase:
        try:
            return view(request, slug, *args, **kwargs)
        except params.BadParameter as error:
            return HttpResponse(str(error), status=BAD_PARAMETER_STATUS, content_type="text/plain; charset=utf-8")
        except plan.Unavailable as error:
            # Only raised once the view has let the user see the survey.
            survey = access.survey_for(request.user, slug)
            # Weights refused (stale margins, say) are the researcher's to correct, on the margins page.
            margins = reverse("aggregation:margins", args=[survey.slug]) if error.field == "weighted" else ""
            return render(request, "aggregation/unavailable.html",
                          {"survey": survey, "reason": error.reason, "margins_url": margins},
                          status=UNAVAILABLE_STATUS)

    return wrapped

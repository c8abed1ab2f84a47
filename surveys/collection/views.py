"""The respondent's page. It renders the questions; respond.js randomizes and posts."""

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone

from surveys.headers import no_referrer

from . import definition
from .models import Survey
from .serializers import SurveyDefinitionSerializer


@no_referrer
def respond(request: HttpRequest, slug: str) -> HttpResponse:
    survey = get_object_or_404(Survey.objects.published(), slug=slug)
    if not survey.is_accepting():
        not_yet = (survey.status == Survey.Status.OPEN and survey.opens_at is not None
                   and timezone.now() < survey.opens_at)
        return render(request, "collection/closed.html", {"survey": survey, "not_yet": not_yet}, status=410)
    published = SurveyDefinitionSerializer(definition.of(survey)).data
    client = {  # all respond.js needs: where to post, and each question's exact sampler
        "endpoint": reverse("collection:api-responses", args=[slug]),
        "csrfToken": get_token(request),
        "version": published["version"],
        "slug": slug,
        "byInvitation": survey.access == Survey.Access.INVITATION,
        "questions": [
            {"id": q["id"], "options": q["options"], "sampler": q["mechanism"]["sampler"]}
            for q in published["questions"]
        ],
    }
    return render(request, "collection/respond.html", {
        "survey": survey, "definition": published, "questions": published["questions"], "client": client,
    })

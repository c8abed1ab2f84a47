"""The respondent's page, its staff-only preview, and a series' stable link. The page renders the questions;
respond.js randomizes and posts (never in a preview)."""

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import translation
from django.views.decorators.cache import never_cache

from surveys.accounts import two_factor
from surveys.headers import no_referrer

from . import integrity, languages, page, waves
from .models import Series, Survey
from .plan import Unavailable


@never_cache  # the page embeds a per-visitor CSRF token: no shared or stored copy
@no_referrer
def respond(request: HttpRequest, slug: str) -> HttpResponse:
    survey = get_object_or_404(Survey.objects.published(), slug=slug)
    if not survey.is_accepting():
        return _closed(request, survey)
    return _page(request, survey, preview=False)


@never_cache  # the current wave changes as waves open and close
@no_referrer
def current_wave(request: HttpRequest, series: str) -> HttpResponse:
    """A series' stable link: to its current wave's page (its query string kept: ?lang=), or, with no wave
    accepting responses, the closed page a wave's own link shows (410); 404 while no wave is published."""
    found = waves.current(get_object_or_404(Series, slug=series))
    if found is None:
        raise Http404
    if not found.accepting:
        return _closed(request, found.survey)
    query = request.GET.urlencode()
    url = reverse("collection:respond", args=[found.survey.slug])
    return HttpResponseRedirect(f"{url}?{query}" if query else url)


def _closed(request: HttpRequest, survey: Survey) -> HttpResponse:
    """A link to a survey that accepts no responses now: 410, saying when it opens if it opens later."""
    return render(request, "collection/closed.html", {"survey": survey, "not_yet": survey.opens_later()}, status=410)


@never_cache
@no_referrer
def preview(request: HttpRequest, slug: str) -> HttpResponse:
    """The page as respondents see it, for staff only, in any state (drafts too); it sends nothing.

    Anybody else gets 404, as for an unknown slug: the preview reveals nothing, not even that
    the survey exists. That includes a staff session the admin would refuse (two_factor.admitted)."""
    user = request.user
    if not (two_factor.admitted(user) and user.is_staff):
        raise Http404
    survey = get_object_or_404(Survey, slug=slug)
    try:
        return _page(request, survey, preview=True)
    except Unavailable as problem:  # a draft still being configured
        return render(request, "collection/respond.html", {"survey": survey, "preview": True,
                                                           "problem": problem.reason})


def _page(request: HttpRequest, survey: Survey, preview: bool) -> HttpResponse:
    """The page in the language chosen (languages.choose), its interface in the same language, so
    the words around the questions agree with them. The language is in the address only: the
    page never sends it."""
    language = languages.choose(survey, request.GET.get("lang"), request)
    missing = languages.unmet(survey, request.GET.get("lang"), request)
    with translation.override(language):
        response = _render(request, survey, preview, language, missing)
    response.headers["Content-Language"] = language
    return response


def _render(request: HttpRequest, survey: Survey, preview: bool, language: str, missing: str | None) -> HttpResponse:
    found, client = page.context(survey, preview, language)
    found["missing"] = page.missing_language(missing, language, found["definition"]["languages"])
    if not preview:  # a preview has nowhere to post to and no token to post with
        client["endpoint"] = reverse("collection:api-responses", args=[survey.slug])
        client["csrfToken"] = get_token(request)
    found["entry_integrity"] = integrity.entry().integrity
    found["preloads"] = integrity.preloads(found["features"])
    found["feature_scripts"] = integrity.scripts(found["features"])
    return render(request, "collection/respond.html", found)

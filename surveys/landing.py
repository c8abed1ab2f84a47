"""GET /: the front page, for whoever arrives at the bare address. Respondents are sent to their
survey's own link; researchers to sign in, or, signed in, to their surveys' results, and staff to
the admin too. It names no survey: those are found through their links or after signing in."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


@never_cache  # it differs for whoever is signed in
@require_safe
def landing(request: HttpRequest) -> HttpResponse:
    return render(request, "landing.html")

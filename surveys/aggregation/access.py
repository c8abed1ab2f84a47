"""Who may see which survey's results: its assigned researchers, and superusers.

A survey a researcher may not see answers exactly as a survey that does not exist: 404, with the same page
(`NoSurvey.page`) and the same API error. A 403 would tell anyone who guesses a slug that the survey exists
(a draft's slug, a title in it); 404 tells nobody anything, and its page still tells a researcher who expected
to see the survey what to do: ask the site's administrators (settings.SURVEY_ACCESS_CONTACT) to add them.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.translation import gettext as _

from surveys.collection.models import Survey


class NoSurvey(Http404):
    """No survey this user may see under the slug; handler404 (surveys.errors.not_found) renders `page`."""

    page = "aggregation/no_access.html"


def survey_for(user: Any, slug: str) -> Survey:
    """The survey `user` may see under `slug`; NoSurvey otherwise (whether or not it exists)."""
    found = Survey.objects.visible_to(user).filter(slug=slug).first()
    if found is None:
        raise NoSurvey(_("no survey you may see has this address: it does not exist, or you are not among its "
                         "researchers (the survey's administrators can add you)"))
    return found

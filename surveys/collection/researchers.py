"""Who sees a new survey's results by default: the admin creating it and the members of the researchers
groups (settings.SURVEY_DEFAULT_RESEARCHERS, Django's auth groups, managed in the admin under Groups).

Without it a new survey was its creator's alone, and the researchers who should read it found nothing in their
list until somebody remembered to tick them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _


def group_names() -> list[str]:
    return list(settings.SURVEY_DEFAULT_RESEARCHERS)


def preselected(creator: Any) -> list[int]:
    """The ids ticked in a new survey's form: its creator, then the active members of the groups, by username."""
    members = get_user_model().objects.filter(groups__name__in=group_names(), is_active=True)
    found = [creator.pk, *members.exclude(pk=creator.pk).order_by("username").values_list("pk", flat=True)]
    return list(dict.fromkeys(found))


def help_text() -> str:
    return _("Who may see this survey's results. A new survey preselects the admin creating it and the members of "
             "the groups %(groups)s.") % {"groups": ", ".join(f"“{name}”" for name in group_names()) or "-"}

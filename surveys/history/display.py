"""A configuration change's fields as an HTML table (the history's admin pages)."""

from __future__ import annotations

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from .models import ConfigurationChange


def changes_table(change: ConfigurationChange) -> SafeString:
    """Field, before, after; an empty value shows as a dash."""
    rows = format_html_join("", "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td></tr>",
                            ((row["field"], row["before"] or "-", row["after"] or "-") for row in change.changes))
    return format_html('<table class="configuration-changes"><thead><tr><th scope="col">{}</th>'
                       '<th scope="col">{}</th><th scope="col">{}</th></tr></thead><tbody>{}</tbody></table>',
                       _("Field"), _("Before"), _("After"), rows)

"""The configuration history in the admin: every staff member may read it; nobody may add,
change or delete a row (not even a superuser)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .display import changes_table
from .models import ConfigurationChange


@admin.register(ConfigurationChange)
class ConfigurationChangeAdmin(admin.ModelAdmin):
    list_display = ("at", "who", "survey", "action", "summary")
    list_filter = ("action",)
    search_fields = ("survey", "who")
    fields = ("at", "who", "survey", "survey_id", "action", "what_changed")
    readonly_fields = fields
    actions = None  # not even delete_selected

    @admin.display(description=gettext_lazy("What changed"))
    def summary(self, change: ConfigurationChange) -> str:
        shown = "; ".join(f"{row['field']}: {row['before'] or '-'} → {row['after'] or '-'}"
                          for row in change.changes[:3])
        more = len(change.changes) - 3
        return shown + (" " + _("(and %(count)d more)") % {"count": more} if more > 0 else "")

    @admin.display(description=gettext_lazy("Changes"))
    def what_changed(self, change: ConfigurationChange) -> SafeString:
        return changes_table(change)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_active and request.user.is_staff)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

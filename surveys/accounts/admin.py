"""Two-factor devices in the admin: who has one, and removing a lost one (so its owner can enrol
again). Nobody adds or edits a device here, and its secret is never shown: owners enrol on
their own page (surveys.accounts.views.two_factor_page). Replaces django-otp's own admin,
which shows the secret and its QR code to any staff member with view permission."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django_otp.plugins.otp_totp.models import TOTPDevice

if admin.site.is_registered(TOTPDevice):
    admin.site.unregister(TOTPDevice)


@admin.register(TOTPDevice)
class TOTPDeviceAdmin(admin.ModelAdmin):
    list_display = ("user", "name", "confirmed", "created_at", "last_used_at")
    list_filter = ("confirmed",)
    search_fields = ("user__username",)
    fields = ("user", "name", "confirmed", "created_at", "last_used_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

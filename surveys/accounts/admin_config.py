"""The admin app with this project's site (surveys.accounts.site.AdminSite) as `admin.site`."""

from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    default_site = "surveys.accounts.site.AdminSite"

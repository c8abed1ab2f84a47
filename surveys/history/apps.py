from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class HistoryConfig(AppConfig):
    name = "surveys.history"
    label = "history"
    verbose_name = gettext_lazy("Configuration history")
    default_auto_field = "django.db.models.BigAutoField"

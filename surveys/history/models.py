"""One row per configuration change: who made it, when, to which survey, and each field that
changed with its value before and after. Rows are only ever added."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy


class ConfigurationChange(models.Model):
    class Action(models.TextChoices):
        CREATED = "created", gettext_lazy("created")
        CHANGED = "changed", gettext_lazy("changed")
        DELETED = "deleted", gettext_lazy("deleted")

    at = models.DateTimeField(gettext_lazy("when"), default=timezone.now, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    who = models.CharField(gettext_lazy("who"), max_length=150,
                           help_text=gettext_lazy("The username at the time (kept if the account goes)."))
    # No foreign key: the history of a survey outlives the survey.
    survey_id = models.BigIntegerField(gettext_lazy("survey id"), db_index=True)
    survey = models.CharField(gettext_lazy("survey"), max_length=260)
    action = models.CharField(gettext_lazy("action"), max_length=10, choices=Action.choices)
    changes = models.JSONField(gettext_lazy("changes"), default=list,
                               help_text=gettext_lazy('[{"field": ..., "before": ..., "after": ...}, ...]'))

    class Meta:
        ordering = ["-at", "-pk"]
        default_permissions = ("view",)
        verbose_name = gettext_lazy("configuration change")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.who}: {self.survey} {self.action}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ValueError("the configuration history is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise ValueError("the configuration history is append-only")

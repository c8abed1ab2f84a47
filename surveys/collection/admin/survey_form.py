"""The survey's admin form: the model's fields, and the reason a re-plan of the confidence sequences needs once
the survey has reports (surveys.collection.replanning), asked afresh each time."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy

from .. import replanning
from ..models import Survey


class SurveyForm(forms.ModelForm):
    reason = forms.CharField(
        label=gettext_lazy("Reason for re-planning"), required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy("Required to change the planned size or confidence once the survey has responses: "
                               "kept in its history, and the results page says where the intervals were re-planned."))

    class Meta:
        model = Survey
        fields = "__all__"
        # The model's words say what the size was figured at; the form says what the level now is (no migration).
        help_texts = {"planned_confidence": gettext_lazy(
            "The level of the intervals valid however often you look, and the confidence the planned size is figured "
            "at: fixed when the survey opens (the results page's confidence box does not change it). Blank: 95%, set "
            "when the survey opens.")}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk is not None and self.instance.status != Survey.Status.DRAFT \
                and not data.get("retention_days") and "retention_days" in self.fields:
            # Required at Open; a published survey keeps one, so its responses always have a deletion date.
            self.add_error("retention_days", gettext_lazy("Required once the survey has been opened: respondents were "
                                                          "told when their responses are deleted."))
        if self.instance.pk is not None and {"planned_size", "planned_confidence"} & set(self.changed_data):
            try:
                replanning.replan(self.instance, data.get("planned_size"), data.get("planned_confidence"),
                                  data.get("reason") or "")
            except ValidationError as error:
                field = error.code if error.code in ("planned_size", "planned_confidence") else "reason"
                self.add_error(field, error)
        return data

"""Population margins in the admin: for a direct question, each option's share of the population and where the
shares come from. The survey's weighted figures rake to every margin it has (surveys.aggregation.weighting)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp
from surveys.collection.models import Option, Question

from .models import MarginShare, PopulationMargin

SUM_TOLERANCE = Decimal("0.000001")  # six decimals each: a census table's rounding may leave this much


class SharesFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        question = self.instance.question if self.instance.question_id else None
        kept = [form.cleaned_data for form in self.forms
                if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        if question is None or any(self.errors):
            return
        options = {option.pk for option in question.ordered_options()}
        given = [data["option"].pk for data in kept]
        if any(pk not in options for pk in given):
            raise forms.ValidationError(_("Every share must be for an option of this margin's question."))
        if set(given) != options:
            raise forms.ValidationError(_("Give a share for every option of the question: the weights need the "
                                          "whole population."))
        total = sum(data["share"] for data in kept)
        if abs(total - 1) > SUM_TOLERANCE:
            raise forms.ValidationError(_("The shares must add up to 1; they add up to %(total)s.")
                                        % {"total": total})


class ShareInline(admin.TabularInline):
    model = MarginShare
    formset = SharesFormSet
    extra = 0
    min_num = 2

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "option":  # options of direct questions: only they can be weighted to
            kwargs["queryset"] = Option.objects.filter(question__in=direct_questions()).select_related("question")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def direct_questions() -> QuerySet[Question]:
    """Questions whose answer is one of their options, sent as given: a respondent's category is known."""
    return Question.objects.filter(mechanism_name__in=[name for name, mechanism in ldp.MECHANISMS.items()
                                                       if not mechanism.randomized and mechanism.one_of_k])


class MarginForm(forms.ModelForm):
    class Meta:
        model = PopulationMargin
        fields = ("question", "source")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["question"].queryset = direct_questions().select_related("survey")  # type: ignore[attr-defined]
        self.fields["question"].help_text = gettext_lazy(
            "A question sent as given (not randomized): a randomized answer does not say whom to weight.")


@admin.register(PopulationMargin)
class PopulationMarginAdmin(admin.ModelAdmin):
    form = MarginForm
    inlines = [ShareInline]
    list_display = ("question", "survey", "source")
    list_select_related = ("question__survey",)

    @admin.display(description=gettext_lazy("survey"))
    def survey(self, margin: PopulationMargin) -> str:
        return str(margin.question.survey)

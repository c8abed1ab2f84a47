"""Population margins in the admin: for a direct question, each option's share of the population and where the
shares come from. The survey's weighted figures rake to every margin it has (surveys.aggregation.weighting.weights).
Researchers set them on the results page and through the API; both and this form check them with the same rules
(surveys.aggregation.weighting.margins), and every save is recorded in the survey's configuration history."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from surveys.collection.models import MAX_OPTIONS, Option, Question
from surveys.history.hooks import RecordsConfigurationChanges

from .models import MarginShare, PopulationMargin
from .weighting import margins


class SharesFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        question = self.instance.question if self.instance.question_id else None
        kept = [form.cleaned_data for form in self.forms
                if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        if question is None or any(self.errors):
            return
        options = question.ordered_options()
        given = [data["option"].pk for data in kept]
        if any(pk not in {option.pk for option in options} for pk in given):
            raise forms.ValidationError(_("Every share must be for an option of this margin's question."))
        if len(set(given)) != len(given):
            raise forms.ValidationError(_("Give each option one share."))
        shares = {data["option"].pk: data["share"] for data in kept}
        _found, problems = margins.whole(question, options, shares, "shares", None)
        if problems:
            raise forms.ValidationError(problems[0].reason)


class ShareInline(admin.TabularInline):
    model = MarginShare
    formset = SharesFormSet
    extra = 0
    min_num = 2
    # A posted TOTAL_FORMS of thousands made as many forms (each with its options' choices) and was killed.
    max_num = MAX_OPTIONS

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        self.chosen = _chosen_question(request, obj)
        return super().get_formset(request, obj, validate_max=True, absolute_max=MAX_OPTIONS, **kwargs)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "option":  # the chosen question's options only (none until one is chosen)
            chosen = getattr(self, "chosen", None)
            kwargs["queryset"] = (Option.objects.filter(question_id=chosen).order_by("order") if chosen is not None
                                  else Option.objects.none())
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def _chosen_question(request: HttpRequest, obj: PopulationMargin | None) -> int | None:
    """The question whose options the shares are for: posted, asked for (?question=), or the margin's own."""
    for given in (request.POST.get("question"), request.GET.get("question")):
        if given and given.isdigit():
            return int(given)
    return obj.question_id if obj is not None else None


class QuestionChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        survey = obj.survey
        where = (_("%(survey)s, wave %(wave)s") % {"survey": survey.title, "wave": survey.wave}
                 if survey.wave else survey.title)
        return f"{where} ({survey.slug}): {obj}"


class MarginForm(forms.ModelForm):
    class Meta:
        model = PopulationMargin
        fields = ("question", "source")
        field_classes = {"question": QuestionChoice}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["question"]
        field.queryset = (margins.direct_questions().select_related("survey")  # type: ignore[attr-defined]
                          .order_by("survey__title", "survey__wave", "survey_id", "order"))
        field.help_text = gettext_lazy(
            "A question sent as given (not randomized): a randomized answer does not say whom to weight. Choosing "
            "one shows its options below.")
        field.widget.attrs["data-options-of"] = "question"


@admin.register(PopulationMargin)
class PopulationMarginAdmin(RecordsConfigurationChanges, admin.ModelAdmin):
    form = MarginForm
    inlines = [ShareInline]
    list_display = ("question", "survey", "source")
    list_select_related = ("question__survey",)

    @admin.display(description=gettext_lazy("survey"))
    def survey(self, margin: PopulationMargin) -> str:
        return margin.question.survey.listed_title

    def surveys_of(self, margin: PopulationMargin) -> list[int | None]:
        stored = PopulationMargin.objects.filter(pk=margin.pk).values_list("question__survey_id", flat=True).first()
        now = Question.objects.filter(pk=margin.question_id).values_list("survey_id", flat=True).first()
        return list(dict.fromkeys([stored, now]))

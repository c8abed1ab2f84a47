"""Questions in the admin: the survey page's question rows and the question's own page.

Every question shows what its mechanism means (surveys.collection.figures); once its survey
has a report it is read-only.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import label_for_field
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp
from ldp.mechanisms import exact_q
from surveys.history.hooks import RecordsConfigurationChanges

from .. import figures, kinds
from ..models import Option, Question, Survey
from . import option_lines
from .question_forms import QuestionForm, QuestionFormSet, QuestionInlineForm


def describe(question: Question) -> str:
    """The figures an admin sees next to a question (effective epsilon, q for yes/no, odds, planner), as the estimates
    and the dashboard will read its reports."""
    try:  # a remembered question's reports are read through both layers: its figures are theirs
        layers = question.remembered() if question.survey_id is not None else None
        mechanism = ldp.mechanisms.remembered.composed(layers) if layers is not None else question.mechanism()
    except (ValueError, TypeError) as error:
        return str(error)
    return format_html("{}", figures.describe(mechanism, kinds.kind_of(question).mechanisms)["summary"])


FROZEN_FIELDS = ("position", "text", "kind", "settings", "privacy")
# The settings a frozen row shows that are no field of the question: their names.
OWN_WORDS = {"options": lambda: _("Options"), "exclusive": lambda: _("Exclusive options")}


def applicable(question: Question, options: str) -> list[tuple[str, object]]:
    """(field, value) of the settings that apply to `question`'s kind and mechanism, in the page's order."""
    kind = kinds.kind_of(question)
    shows = kind.boxes()
    found: list[tuple[str, object]] = []
    if kind.has_options(question.mechanism_name):
        found.append(("options", options))
    exclusive = option_lines.exclusive_written(question)
    if shows.get("exclusive") and exclusive:
        found.append(("exclusive", ", ".join(exclusive.splitlines())))
    if shows.get("at_most") and question.at_most is not None:
        found.append(("at_most", question.at_most))
    if shows.get("scale"):
        found += [(name, getattr(question, name)) for name in ("lo", "hi", "step")]
    found.append(("mechanism_name", question.get_mechanism_name_display()))
    parameter = ldp.MECHANISMS[question.mechanism_name].parameter
    if parameter is not None:
        found.append((parameter, getattr(question, parameter)))
    found += [(name, getattr(question, name)) for name in ("permanent_q", "permanent_epsilon")
              if getattr(question, name) is not None]
    if question.relevant:  # skip logic
        found.append(("relevant", question.relevant))
    # A decimal as typed (0.5, 100), not as stored (0.500000, 1E+2); q exactly, a fraction with its decimal.
    return [(name, f"{value.normalize():f}" if isinstance(value, Decimal) else
             exact_q.shown(value) if isinstance(value, Fraction) else value) for name, value in found]


class FrozenAfterReports(admin.options.InlineModelAdmin):
    """Inline rows become read-only once the parent's survey has a report."""

    def survey_of(self, obj: Any) -> Survey:
        raise NotImplementedError

    def _frozen(self, obj: Any) -> bool:
        return obj is not None and self.survey_of(obj).has_reports()

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not self._frozen(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not self._frozen(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not self._frozen(obj) and super().has_delete_permission(request, obj)


class QuestionInline(FrozenAfterReports, admin.StackedInline):
    model = Question
    form = QuestionInlineForm
    formset = QuestionFormSet
    extra = 0
    show_change_link = True

    def get_extra(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> int:
        """A new survey starts with one blank question row: most surveys are built in one go."""
        return 1 if obj is None else 0
    # position, options_text and prefer_not_to_say are form fields; read-only (a frozen survey) they show
    # the methods below.
    fields = ("position", "text", "name", "kind", "options_text", "prefer_not_to_say", "exclusive_options", "at_most",
              "lo", "hi", "step",
              "mechanism_name", "q", "epsilon", "permanent_q", "permanent_epsilon", "relevant", "privacy")
    readonly_fields = ("privacy", "settings")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """Read-only (a frozen survey), a row shows only what applies to its question, in one field: the
        fields are the same for every row, and a yes/no question has no Lo or Hi."""
        return FROZEN_FIELDS if self._frozen(obj) else super().get_fields(request, obj)

    @admin.display(description=gettext_lazy("What it means"))
    def privacy(self, question: Question) -> str:
        return describe(question) if question.pk else _("Save to see the privacy figures.")

    @admin.display(description=gettext_lazy("Settings"))
    def settings(self, question: Question) -> str:
        return format_html_join(mark_safe("<br>"), "{}: {}", (
            (capfirst(str(label_for_field(name, Question, self))) if name not in OWN_WORDS else OWN_WORDS[name](),
             value) for name, value in applicable(question, self.options_text(question))))

    @admin.display(description=gettext_lazy("Order"))
    def position(self, question: Question) -> int:
        return question.order

    @admin.display(description=gettext_lazy("Options"))
    def options_text(self, question: Question) -> str:
        if not kinds.kind_of(question).options or not question.ordered_options():
            return "-"
        text, prefer_not = option_lines.written(question)
        return ", ".join(text.splitlines() + ([option_lines.prefer_not_to_say()] if prefer_not else []))

    @admin.display(description=gettext_lazy("“Prefer not to say” last"), boolean=True)
    def prefer_not_to_say(self, question: Question) -> bool:
        return option_lines.ends_with_prefer_not(question.kind, question.ordered_options())

    def survey_of(self, obj: Survey) -> Survey:
        return obj


class OptionFormSet(forms.BaseInlineFormSet):
    """A question's options on its own page: its exclusive options checked together (each one's kind is
    checked by Option.clean)."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        live = [form.cleaned_data for form in self.forms
                if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        problem = kinds.kind_of(self.instance).exclusive_problem([bool(data.get("exclusive")) for data in live])
        if problem:
            raise forms.ValidationError(problem)


class OptionInline(FrozenAfterReports, admin.TabularInline):
    model = Option
    formset = OptionFormSet
    extra = 0
    fields = ("order", "label", "name", "score", "lower", "exclusive")

    def survey_of(self, obj: Question) -> Survey:
        return obj.survey


@admin.register(Question)
class QuestionAdmin(RecordsConfigurationChanges, admin.ModelAdmin):
    form = QuestionForm
    list_display = ("text", "survey", "order", "kind", "mechanism_name", "privacy")
    list_filter = ("survey",)
    inlines = [OptionInline]
    readonly_fields = ("privacy",)

    @admin.display(description=gettext_lazy("What it means"))
    def privacy(self, question: Question) -> str:
        return describe(question) if question.pk else "-"

    def surveys_of(self, question: Question) -> list[int | None]:
        """Its survey, and the one it is stored in (a question can be moved to another survey)."""
        stored = Question.objects.filter(pk=question.pk).values_list("survey_id", flat=True).first()
        return [question.survey_id, stored]

    def has_change_permission(self, request: HttpRequest, obj: Question | None = None) -> bool:
        if obj is not None and obj.survey.has_reports():
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Question | None = None) -> bool:
        if obj is not None and obj.survey.has_reports():
            return False
        return super().has_delete_permission(request, obj)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        question = form.instance
        kind = kinds.kind_of(question)
        count = len(question.ordered_options())
        if kind.has_options(question.mechanism_name) and count < 2 and not (
                count == 0 and kind.options_optional(question.mechanism_name)):
            self.message_user(request, kind.needs_options_to_open(), messages.WARNING)

"""Survey configuration in the Django admin.

Every question shows what its mechanism means (effective epsilon, q, odds, respondents
needed); a survey over its privacy budget, or a mechanism that does not fit its question,
cannot be saved; once a survey has a report its questions are read-only.
"""

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html

import ldp

from . import invitations, lifecycle, plan, purge
from .models import Option, Question, Survey


def describe(question: Question) -> str:
    """The figures an admin sees next to a question: effective epsilon (and q for yes/no), odds, planner."""
    try:
        mechanism = question.mechanism()
    except (ValueError, TypeError) as error:
        return str(error)
    q = "" if mechanism.q_equivalent is None else f" (q = {mechanism.q_equivalent:.4f})"
    return format_html(
        "ε = {}{}; a report shifts the odds at most {}:1; {} respondents for ±5 points at 95%",
        f"{mechanism.effective_epsilon:.4f}", q, f"{ldp.odds_factor(mechanism.effective_epsilon):.2f}",
        f"{ldp.respondents_needed(mechanism, 0.05):,}",
    )


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


class QuestionFormSet(forms.BaseInlineFormSet):
    """Checks the survey's total epsilon, as it will be after this save, against its budget."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        mechanisms = []
        for form in self.forms:
            if not form.cleaned_data or form.cleaned_data.get("DELETE"):
                continue
            question = form.instance
            try:
                mechanisms.append(question.mechanism())
            except (ValueError, TypeError):
                continue  # the form's own clean() has reported it
        total = ldp.survey_epsilon(mechanisms)
        budget = self.instance.epsilon_budget
        if total > budget:
            raise ValidationError(
                f"These questions cost ε = {total:.4f} per respondent, over the survey's budget "
                f"of {budget:g}. Lower some epsilons (or q), or raise the budget."
            )


class QuestionInline(FrozenAfterReports, admin.StackedInline):
    model = Question
    formset = QuestionFormSet
    extra = 0
    show_change_link = True
    fields = ("order", "text", "kind", "mechanism_name", "q", "epsilon", "privacy")
    readonly_fields = ("privacy",)

    @admin.display(description="What it means")
    def privacy(self, question: Question) -> str:
        return describe(question) if question.pk else "Save to see the privacy figures."

    def survey_of(self, obj: Survey) -> Survey:
        return obj


class InvitationForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=invitations.MAX_BATCH, initial=100,
                               help_text="Each link works once. They are shown only in this download.")


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "status", "epsilon_summary", "response_count", "opens_at", "closes_at")
    list_filter = ("status",)
    search_fields = ("title", "slug")
    prepopulated_fields = {"slug": ("title",)}
    filter_horizontal = ("researchers",)
    # Status changes only through the open/close actions, which check the configuration first.
    readonly_fields = ("status", "epsilon_summary", "response_count", "invitation_summary")
    inlines = [QuestionInline]
    actions = ["open_surveys", "close_surveys", "create_invitations", "purge_responses"]
    fieldsets = (
        (None, {"fields": ("title", "slug", "description")}),
        ("Collection", {"fields": ("status", "opens_at", "closes_at", "access", "response_count",
                                   "invitation_summary")}),
        ("Privacy", {"fields": ("epsilon_budget", "epsilon_summary")}),
        ("Results", {"fields": ("researchers",)}),
    )

    @admin.display(description="Privacy cost (ε per respondent)")
    def epsilon_summary(self, survey: Survey) -> str:
        if survey.pk is None:
            return "-"
        try:
            total = plan.of(survey).epsilon_total
        except plan.Unavailable as error:
            return f"incomplete: {error.reason}"
        return f"{total:.4f} of {survey.epsilon_budget:g}"

    @admin.display(description="Invitations")
    def invitation_summary(self, survey: Survey) -> str:
        if survey.pk is None:
            return "-"
        made, used = invitations.counts(survey)
        return f"{made} made, {used} used"

    @admin.display(description="Responses")
    def response_count(self, survey: Survey) -> int:
        return survey.responses.count() if survey.pk else 0

    @admin.action(description="Open the selected surveys for responses", permissions=["change"])
    def open_surveys(self, request: HttpRequest, queryset: QuerySet[Survey]) -> None:
        self._transition(request, queryset, lifecycle.open_survey, "opened")

    @admin.action(description="Close the selected surveys", permissions=["change"])
    def close_surveys(self, request: HttpRequest, queryset: QuerySet[Survey]) -> None:
        self._transition(request, queryset, lifecycle.close_survey, "closed")

    @admin.action(description="Create invitation links (CSV download)…", permissions=["change"])
    def create_invitations(self, request: HttpRequest, queryset: QuerySet[Survey]) -> HttpResponse | None:
        if queryset.count() != 1 or queryset.get().access != Survey.Access.INVITATION:
            self.message_user(request, "Select one invitation-only survey (set its access first).", messages.ERROR)
            return None
        survey = queryset.get()
        form = InvitationForm(request.POST if "count" in request.POST else None)
        if not form.is_valid():  # first visit, or a bad count: ask (again)
            return TemplateResponse(request, "admin/collection/invite.html", {
                **self.admin_site.each_context(request), "title": "Create invitation links",
                "survey": survey, "form": form, "opts": self.model._meta,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            })
        tokens = invitations.create(survey, form.cleaned_data["count"])
        response = HttpResponse(invitations.links_csv(request.build_absolute_uri("/"), survey, tokens),
                                content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{survey.slug}-invitations.csv"'
        return response

    @admin.action(description="Purge responses and invitations…", permissions=["delete"])
    def purge_responses(self, request: HttpRequest, queryset: QuerySet[Survey]) -> HttpResponse | None:
        """Like delete_selected: a page listing what will go, then a POST with post=yes purges."""
        surveys = list(queryset.order_by("slug"))
        if request.POST.get("post") != "yes":
            return TemplateResponse(request, "admin/collection/purge.html", {
                **self.admin_site.each_context(request), "title": "Purge responses and invitations",
                "plans": [(survey, purge.preview(survey)) for survey in surveys], "opts": self.model._meta,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            })
        with transaction.atomic():  # several surveys: all of them or none
            done = [(survey, purge.purge(survey)) for survey in surveys]
        for survey, purged in done:
            self.message_user(request, f"{survey}: {purged}", messages.SUCCESS)
        return None

    def _transition(self, request: HttpRequest, queryset: QuerySet[Survey], verb: Callable[[Survey], None],
                    done: str) -> None:
        for survey in queryset:
            try:
                verb(survey)
            except ValidationError as error:
                self.message_user(request, f"{survey}: {' '.join(error.messages)}", messages.ERROR)
            else:
                self.message_user(request, f"{survey}: {done}.", messages.SUCCESS)


class OptionInline(FrozenAfterReports, admin.TabularInline):
    model = Option
    extra = 0
    fields = ("order", "label")

    def survey_of(self, obj: Question) -> Survey:
        return obj.survey


class QuestionForm(forms.ModelForm):
    class Meta:
        model = Question
        fields = ("survey", "order", "text", "kind", "mechanism_name", "q", "epsilon")

    def _post_clean(self) -> None:
        # The budget is checked on the instance as it will be saved, after the form's values are on it.
        super()._post_clean()  # type: ignore[misc]  # Django's hook, absent from the stubs
        if self.errors:
            return
        try:
            lifecycle.check_budget_with(self.instance.survey, self.instance)
        except ValidationError as error:
            self.add_error(None, error)
        except (ValueError, TypeError) as error:
            self.add_error(None, str(error))


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    form = QuestionForm
    list_display = ("text", "survey", "order", "kind", "mechanism_name", "privacy")
    list_filter = ("survey",)
    inlines = [OptionInline]
    readonly_fields = ("privacy",)

    @admin.display(description="What it means")
    def privacy(self, question: Question) -> str:
        return describe(question) if question.pk else "-"

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
        if question.kind == Question.Kind.SINGLE_CHOICE and question.k() < 2:
            self.message_user(request, "A single-choice question needs at least two options "
                                       "before its survey can open.", messages.WARNING)

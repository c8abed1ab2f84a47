"""Surveys in the admin: the survey page (questions inline, the respondent link, Open / Close
buttons, live privacy figures), its list and its actions.

A survey over its privacy budget, or a mechanism that does not fit its question, cannot be
saved; once a survey has a report its questions are read-only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.functional import lazy
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp
from ldp.mechanisms import exact_q
from ldp.planning.rounding import total_loss
from surveys.history import recorder
from surveys.history.display import changes_table
from surveys.history.hooks import RecordsConfigurationChanges
from surveys.history.models import ConfigurationChange

from .. import figures, invitations, kinds, lifecycle, plan, purge, researchers, sharing, waves
from ..models import Series, Survey
from . import views, xlsform
from .questions import QuestionInline
from .survey_form import SurveyForm
from .translations import SurveyTranslationInline, translate_view, translation_links


def _kept(text: Any) -> SafeString:
    return mark_safe(escape(str(text)).replace("ε", '<span class="symbol">ε</span>'))  # noqa: S308  # escaped first


# A list header's text, with its Greek letters in a span the list's upper-casing leaves alone (admin.css).
symbols_kept = lazy(_kept, SafeString)

# Invitations limit who may answer, not who may read: the page and the definition API serve the
# questions to anyone with the slug (a token travels in the link's fragment, which the server never
# sees before the respondent posts). Said where the access is chosen.
ACCESS_HELP = gettext_lazy(
    "Invitation links limit who can answer, not who can read: the questions are public. Anyone who knows or "
    "guesses the slug can read them on the survey's page and in its API, with their mechanisms. If the "
    "questions themselves are sensitive, choose a slug nobody can guess.")


escaped = lazy(lambda text: escape(str(text)), str)  # in the language of the page it is rendered on


class InvitationForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=invitations.MAX_BATCH, initial=100,
                               help_text=gettext_lazy("Each link works once. They are shown only in this download."))


@admin.register(Survey)
class SurveyAdmin(RecordsConfigurationChanges, admin.ModelAdmin):
    list_display = ("listed_title", "slug", "status", "epsilon_column", "response_count", "opens_at", "closes_at")
    list_filter = ("status",)
    search_fields = ("title", "slug")
    prepopulated_fields = {"slug": ("title",)}
    # Plain widgets: the admin's two-box picker and split date/time inputs fail axe-core's WCAG
    # checks (an ARIA label on a span, time inputs without a label).
    formfield_overrides = {models.DateTimeField: {"widget": forms.DateTimeInput(
        attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")}}
    # Status changes only through the open/close actions, which check the configuration first.
    readonly_fields = ("status", "epsilon_summary", "response_count", "invitation_summary", "translations", "series",
                       "wave", "replanned")
    inlines = [QuestionInline, SurveyTranslationInline]
    object_history_template = "admin/collection/survey/object_history.html"  # with the field-level history
    actions = ["open_surveys", "close_surveys", "create_invitations", "purge_responses"]
    fieldsets = (
        (None, {"fields": ("title", "slug", "description", "language", "consent", "translations")}),
        (gettext_lazy("Collection"), {"fields": ("status", "opens_at", "closes_at", "retention_days", "access",
                                   "response_count", "invitation_summary", "series", "wave")}),
        (gettext_lazy("Privacy"), {"fields": ("epsilon_budget", "epsilon_summary")}),
        (gettext_lazy("Results"), {"fields": ("researchers",)}),
        (gettext_lazy("Intervals valid however often you look"), {"fields": (
            "planned_size", "planned_confidence", "reason", "replanned")}),
    )
    form = SurveyForm

    def formfield_for_dbfield(self, db_field: models.Field[Any, Any], request: HttpRequest,
                              **kwargs: Any) -> forms.Field | None:
        if db_field.name == "access":
            kwargs["help_text"] = ACCESS_HELP
        if db_field.name == "researchers":
            kwargs["help_text"] = researchers.help_text()
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [
            # Called by the page's script: refused in the API's JSON shape, not by the admin's login redirect.
            path("privacy-figures/", views.answered_in_json(self, views.privacy_figures),
                 name="collection_survey_privacy_figures"),
            path("privacy-total/", views.answered_in_json(self, views.privacy_total),
                 name="collection_survey_privacy_total"),
            path("<path:object_id>/translate/<str:language>/", wrap(lambda request, object_id, language: translate_view(
                self, request, unquote(object_id), language)), name="collection_survey_translate"),
            path("<path:object_id>/open/", wrap(lambda request, object_id: views.transition(
                self, request, unquote(object_id), "open")), name="collection_survey_open"),
            path("<path:object_id>/close/", wrap(lambda request, object_id: views.transition(
                self, request, unquote(object_id), "close")), name="collection_survey_close"),
            path("<path:object_id>/new-wave/", wrap(lambda request, object_id: views.new_wave(
                self, request, unquote(object_id))), name="collection_survey_new_wave"),
            path("import-xlsform/", wrap(lambda request: xlsform.import_view(self, request)),
                 name="collection_survey_import_xlsform"),
            path("<path:object_id>/xlsform/", wrap(lambda request, object_id: xlsform.download_view(
                self, request, unquote(object_id))), name="collection_survey_xlsform"),
            *super().get_urls(),
        ]

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        context = {**(extra_context or {}), **self.page_context(request)}
        survey = self.get_object(request, unquote(object_id))
        if survey is not None:
            context.update(sharing.context(request, survey), **sharing.series_context(request, survey))
            context["can_transition"] = self.has_change_permission(request, survey)
            context["can_run_again"] = context["can_transition"] and self.has_add_permission(request)
            context["survey_admin_config"]["remembered"] = remembered_layers(survey)
            context["still_open_before"] = waves.still_open_before(survey) if context["can_transition"] else []
        return super().change_view(request, object_id, form_url, context)

    def history_view(self, request: HttpRequest, object_id: str,
                     extra_context: dict[str, Any] | None = None) -> HttpResponse:
        found = ConfigurationChange.objects.filter(survey_id=int(object_id)) if object_id.isdigit() else []
        changes = [(change, changes_table(change)) for change in found]
        return super().history_view(request, object_id, {**(extra_context or {}), "configuration_changes": changes})

    def surveys_of(self, survey: Survey) -> list[int | None]:
        return [survey.pk]

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """A new survey's results are its creator's and the researchers groups' to see, unless the admin unticks
        them."""
        return {"researchers": researchers.preselected(request.user), **super().get_changeform_initial_data(request)}

    def add_view(self, request: HttpRequest, form_url: str = "",
                 extra_context: dict[str, Any] | None = None) -> HttpResponse:
        return super().add_view(request, form_url, {**(extra_context or {}), **self.page_context(request)})

    def page_context(self, request: HttpRequest) -> dict[str, Any]:
        """What the page's script needs: where to ask for figures, which mechanisms fit which
        kind of question, and its words (translated here)."""
        return {
            "privacy_guidance": figures.GUIDANCE,
            "survey_admin_config": {
                "figures_url": reverse("admin:collection_survey_privacy_figures"),
                "total_url": reverse("admin:collection_survey_privacy_total"),
                # The first two kinds' mechanisms, as before; `kinds` describes every kind (mechanisms, boxes).
                "mechanisms": {kind.name: list(kind.mechanisms) for kind in kinds.KINDS[:2]},
                "kinds": kinds.kinds_config(),
                # What each mechanism takes (its `keys`): the boxes its row shows, what the figures request sends.
                "parameters": {name: sorted(cls.keys) for name, cls in ldp.MECHANISMS.items()},
                "text": {
                    "up": _("Move up"), "down": _("Move down"),
                    "total": _("Privacy cost of these questions: ε = {total} per respondent, of a budget of {budget}."),
                    "unrandomized": _("Only the randomized questions count: {count} not randomized (direct), sent as "
                                "given, with no epsilon."),
                    "over": _("Over the budget: lower some epsilons (or q), or raise the budget."),
                    "incomplete": _("Complete every question to see the total."),
                    "waiting": _("Working out the figures…"),
                    "prefer_not": _("Prefer not to say"),
                },
            },
        }

    @admin.display(description=gettext_lazy("Title"), ordering="title")
    def listed_title(self, survey: Survey) -> str:
        return survey.listed_title

    @admin.display(description=symbols_kept(gettext_lazy("Privacy cost (ε per respondent)")))
    def epsilon_column(self, survey: Survey) -> str:
        """The list's column: `epsilon_summary` under a header whose ε keeps its case (the list upper-cases its
        headers, and a capital epsilon reads as an E)."""
        return self.epsilon_summary(survey)

    @admin.display(description=gettext_lazy("Privacy cost (ε per respondent)"))
    def epsilon_summary(self, survey: Survey) -> str:
        if survey.pk is None:
            return "-"
        try:
            current = plan.of(survey)
        except plan.Unavailable as error:
            return _("incomplete: %(reason)s") % {"reason": error.reason}
        total = total_loss(question.mechanism.sampler() for question in current).epsilon_up(4)  # rounded up
        found = _("{total} of {budget}").format(total=str(total), budget=f"{survey.epsilon_budget:g}")
        direct = len(current.direct)
        if direct:
            found += " " + _("(randomized questions only; %(count)d not randomized, sent as given)") % {"count": direct}
        return found

    @admin.display(description=gettext_lazy("Re-planned"))
    def replanned(self, survey: Survey) -> str:
        if survey.replanned_at is None:
            return "-"
        return _("at n = %(n)d: %(reason)s") % {"n": survey.replanned_at, "reason": survey.replan_reason}

    @admin.display(description=gettext_lazy("Other languages"))
    def translations(self, survey: Survey) -> str:
        return translation_links(survey)

    @admin.display(description=gettext_lazy("Invitations"))
    def invitation_summary(self, survey: Survey) -> str:
        if survey.pk is None:
            return "-"
        made, used = invitations.counts(survey)
        return _("%(made)d made, %(used)d used") % {"made": made, "used": used}

    @admin.display(description=gettext_lazy("Responses"))
    def response_count(self, survey: Survey) -> int:
        return survey.responses.count() if survey.pk else 0

    @admin.action(description=gettext_lazy("Open the selected surveys for responses"), permissions=["change"])
    def open_surveys(self, request: HttpRequest, queryset: QuerySet[Survey]) -> None:
        self._transition(request, queryset, lifecycle.open_survey, "open")

    @admin.action(description=gettext_lazy("Close the selected surveys"), permissions=["change"])
    def close_surveys(self, request: HttpRequest, queryset: QuerySet[Survey]) -> None:
        self._transition(request, queryset, lifecycle.close_survey, "close")

    @admin.action(description=gettext_lazy("Create invitation links (CSV download)…"), permissions=["change"])
    def create_invitations(self, request: HttpRequest, queryset: QuerySet[Survey]) -> HttpResponse | None:
        if queryset.count() != 1 or queryset.get().access != Survey.Access.INVITATION:
            self.message_user(request, _("Select one invitation-only survey (set its access first)."),
                              messages.ERROR)
            return None
        survey = queryset.get()
        form = InvitationForm(request.POST if "count" in request.POST else None)
        if not form.is_valid():  # first visit, or a bad count: ask (again)
            return TemplateResponse(request, "admin/collection/invite.html", {
                **self.admin_site.each_context(request), "title": _("Create invitation links"),
                "survey": survey, "form": form, "opts": self.model._meta,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            })
        tokens = invitations.create(survey, form.cleaned_data["count"])
        response = HttpResponse(invitations.links_csv(request.build_absolute_uri("/"), survey, tokens),
                                content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{survey.slug}-invitations.csv"'
        return response

    @admin.action(description=gettext_lazy("Purge responses and invitations…"), permissions=["delete"])
    def purge_responses(self, request: HttpRequest, queryset: QuerySet[Survey]) -> HttpResponse | None:
        """Like delete_selected: a page listing what will go, then a POST with post=yes purges."""
        surveys = list(queryset.order_by("slug"))
        if request.POST.get("post") != "yes":
            return TemplateResponse(request, "admin/collection/purge.html", {
                **self.admin_site.each_context(request), "title": _("Purge responses and invitations"),
                "plans": [(survey, purge.preview(survey)) for survey in surveys], "opts": self.model._meta,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            })
        with transaction.atomic(), recorder.recording(request.user, *(survey.pk for survey in surveys)):
            done = [(survey, purge.purge(survey)) for survey in surveys]  # several surveys: all or none
        for survey, purged in done:
            self.message_user(request, f"{survey}: {purged}", messages.SUCCESS)
        return None

    def _transition(self, request: HttpRequest, queryset: QuerySet[Survey], verb: Callable[[Survey], None],
                    verb_name: str) -> None:
        for survey in queryset:
            try:
                with recorder.recording(request.user, survey.pk):
                    verb(survey)
            except ValidationError as error:
                self.message_user(request, f"{survey}: {' '.join(error.messages)}", messages.ERROR)
            else:
                views.tell_done(self, request, survey, verb_name)


def remembered_layers(survey: Survey) -> dict[str, dict[str, str | None]]:
    """The permanent layer of each question that remembers (by id): the page's live figures read its reports through
    both layers, as the estimates will."""
    if not survey.remembers():
        return {}
    return {str(q.pk): {"permanent_q": None if q.permanent_q is None else exact_q.text(q.permanent_q),
                        "permanent_epsilon": None if q.permanent_epsilon is None else str(q.permanent_epsilon)}
            for q in survey.questions.all() if q.has_permanent_layer()}


@admin.register(Series)
class SeriesAdmin(admin.ModelAdmin):
    """A series' title, the slug of its stable link, and whether it remembers randomization (frozen once a wave has
    reports)."""

    list_display = ("title", "slug", "remembered", "created_at")
    fields = ("title", "slug", "link", "remembered")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("link", "remembered") if obj is not None and obj.has_reports() else ("link",)

    def formfield_for_dbfield(self, db_field: models.Field[Any, Any], request: HttpRequest,
                              **kwargs: Any) -> forms.Field | None:
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None and field.help_text:  # the admin renders help texts as HTML: "/w/<slug>/" is no tag
            field.help_text = escaped(field.help_text)
        return field

    @admin.display(description=gettext_lazy("Link to the current wave"))
    def link(self, series: Series) -> str:
        """Shown, not linked: a draft series' link is answered 404 until a wave is published."""
        return reverse("collection:current-wave", args=[series.slug]) if series.pk else "-"

"""A survey's translations in the admin: its languages (one row each, with the survey's own texts
in that language) inline on the survey page, and a page per language for every question's text
and option's label beside the default's. Text only: editable after the first report, since it
changes no mechanism and no version.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import translation
from django.utils.html import format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from surveys.history import recorder

from .. import languages
from ..models import OptionTranslation, Question, QuestionTranslation, Survey, SurveyTranslation
from ..models.kinds import has_options
from . import option_lines


class SurveyTranslationFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        """The survey's own language is not one of its translations (its texts are the survey's fields).
        The survey here is as its form left it, so a language changed in the same save counts."""
        super().clean()
        for form in self.forms:
            if form.cleaned_data.get("language") == self.instance.language and not form.cleaned_data.get("DELETE"):
                form.add_error("language", _("This is the survey's own language: its texts are on this page."))


class SurveyTranslationInline(admin.StackedInline):
    model = SurveyTranslation
    formset = SurveyTranslationFormSet
    fields = ("language", "title", "description", "consent")
    extra = 0
    verbose_name = gettext_lazy("other language")
    verbose_name_plural = gettext_lazy("Other languages (title, description and consent text in each; the "
                                       "questions' texts on each language's translation page)")


def translation_links(survey: Survey) -> str:
    """Each offered language's translation page, with how many texts it still lacks."""
    if survey.pk is None:
        return "-"
    rows = [(reverse("admin:collection_survey_translate", args=[survey.pk, row.language]), languages.name(row.language))
            for row in survey.translations.all()]
    if not rows:
        return _("None yet: add a language below, save, then translate its questions here.")
    # One paragraph per link: apart enough for the target size minimum, and no text around them
    # (the admin's links are not underlined).
    return format_html_join("", '<p><a href="{}">{}</a></p>', rows)


def shipped(label: str, language: str) -> str:
    """The app's own translation of an option it wrote ("Prefer not to say", added in one click), so nobody
    translates it by hand; empty for any other label."""
    if label.casefold() not in {_in(code).casefold() for code, _name in settings.LANGUAGES}:
        return ""
    return _in(language)


def _in(language: str) -> str:
    with translation.override(language):
        return option_lines.prefer_not_to_say()


def _fields(survey: Survey, language: str) -> dict[str, tuple[Any, str, str]]:
    """Form field name -> (the row it translates, its default text, its translation now)."""
    found: dict[str, tuple[Any, str, str]] = {}
    for question in survey.ordered_questions().prefetch_related("translations", "options__translations"):
        text = next((t.text for t in question.translations.all() if t.language == language), "")
        found[f"question-{question.pk}"] = (question, question.text, text)
        if has_options(question.kind, question.mechanism_name):
            for option in question.ordered_options():
                label = next((t.label for t in option.translations.all() if t.language == language), "")
                found[f"option-{option.pk}"] = (option, option.label, label or shipped(option.label, language))
    return found


class TranslationForm(forms.Form):
    def __init__(self, fields: dict[str, tuple[Any, str, str]], *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        for name, (row, default, text) in fields.items():
            label = (_("Question %(n)d") % {"n": row.order} if isinstance(row, Question)
                     else _("Question %(n)d, option %(i)d") % {"n": row.question.order, "i": row.order + 1})
            self.fields[name] = forms.CharField(label=label, initial=text, required=False, help_text=default,
                                               max_length=500 if isinstance(row, Question) else 200,
                                               widget=forms.Textarea(attrs={"rows": 2, "cols": 60})
                                               if isinstance(row, Question) else None)


def save(fields: dict[str, tuple[Any, str, str]], data: dict[str, str], language: str) -> None:
    """Write each text given, delete each one cleared."""
    for name, (row, _default, _text) in fields.items():
        value = data[name].strip()
        model, key, column = ((QuestionTranslation, "question", "text") if isinstance(row, Question)
                              else (OptionTranslation, "option", "label"))
        if value:
            model.objects.update_or_create(**{key: row, "language": language}, defaults={column: value})
        else:
            model.objects.filter(**{key: row, "language": language}).delete()


def translate_view(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str, language: str) -> HttpResponse:
    """GET: every question's text and option's label in `language`, beside the default's; POST: save them."""
    survey = model_admin.get_object(request, object_id)
    if survey is None:
        raise Http404
    if not model_admin.has_change_permission(request, survey):
        raise PermissionDenied
    if not survey.translations.filter(language=language).exists():
        raise Http404  # not a language the survey offers
    fields = _fields(survey, language)
    form = TranslationForm(fields, request.POST if request.method == "POST" else None)
    if form.is_valid():
        with transaction.atomic(), recorder.recording(request.user, survey.pk):
            save(fields, form.cleaned_data, language)
        model_admin.message_user(request, _("%(language)s texts saved.") % {"language": languages.name(language)},
                                 messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:collection_survey_change", args=[survey.pk]))
    return TemplateResponse(request, "admin/collection/translate.html", {
        **model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, "survey": survey,
        "form": form, "language": language, "direction": "rtl" if language in settings.LANGUAGES_BIDI else "ltr",
        "title": _("%(language)s texts of %(survey)s") % {"language": languages.name(language), "survey": survey},
    })


"""A survey's translations in the admin: one page per language where the survey's own texts (title,
description, consent), every question's text and every option's label are translated together, each
beside the default's, and saved in one transaction (a bad field stores nothing). The survey page lists
its languages (removable there) and links to each language's page, and to the pages of the languages it
does not offer yet: a language is offered once its page is first saved. Text only: editable after the
first report, since it changes no mechanism and no version.
"""

from __future__ import annotations

from dataclasses import dataclass
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

from .. import kinds, languages
from ..models import Option, Question, Survey, SurveyTranslation
from . import option_lines


class SurveyTranslationFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        """The survey's own language is not one of its translations (its texts are the survey's fields).
        The survey here is as its form left it, so a language changed in the same save counts."""
        super().clean()
        for form in self.forms:
            if form.instance.language == self.instance.language and not form.cleaned_data.get("DELETE"):
                form.add_error(None, _("This is the survey's own language: remove this translation, or keep "
                                       "the survey's language."))

    def delete_existing(self, obj: SurveyTranslation, commit: bool = True) -> None:
        if commit:
            languages.withdraw(obj)


class SurveyTranslationInline(admin.StackedInline):
    """The languages offered, to remove one; their texts are on each language's translation page. Stacked: the
    tabular inline's Delete boxes have no label."""

    model = SurveyTranslation
    formset = SurveyTranslationFormSet
    fields = ("language",)
    readonly_fields = ("language",)
    extra = 0
    verbose_name = gettext_lazy("other language")
    verbose_name_plural = gettext_lazy("Other languages (to remove one; translate on its page, linked above)")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a language is added by saving its translation page


def translation_links(survey: Survey) -> str:
    """Each offered language's translation page, then the page of each language it could add."""
    if survey.pk is None:
        return _("Save the survey first, then translate it here.")
    offered = sorted(row.language for row in survey.translations.all())
    others = [code for code, _name in settings.LANGUAGES if code != survey.language and code not in offered]
    # One paragraph per link: apart enough for the target size minimum, and no text around them
    # (the admin's links are not underlined).
    rows = [(reverse("admin:collection_survey_translate", args=[survey.pk, code]),
             _("Translate into %(language)s") % {"language": languages.name(code, True)}) for code in offered]
    rows += [(reverse("admin:collection_survey_translate", args=[survey.pk, code]),
              _("Add %(language)s") % {"language": languages.name(code, True)}) for code in others]
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


@dataclass(frozen=True)
class Text:
    """One translatable text: the row it belongs to, its label, the default's text and its translation now."""

    row: Question | Option | None  # None: the survey's own text (its title, description or consent)
    column: str
    label: str
    source: str
    text: str
    longest: int
    required: bool = False
    lines: int = 0  # a text area of this many rows; 0: a one-line box


def _texts(survey: Survey, language: str) -> dict[str, Text]:
    """Form field name -> the text it translates, the survey's own first, then each question's."""
    offer = survey.translations.filter(language=language).first()
    found = {
        "title": Text(None, "title", _("Title"), survey.title, offer.title if offer else "", 200, required=True),
        "description": Text(None, "description", _("Description"), survey.description,
                            offer.description if offer else "", 10_000, lines=3),
        "consent": Text(None, "consent", _("Consent text"), survey.consent, offer.consent if offer else "",
                        10_000, lines=3),
    }
    for question in survey.ordered_questions().prefetch_related("translations", "options__translations"):
        text = next((t.text for t in question.translations.all() if t.language == language), "")
        found[f"question-{question.pk}"] = Text(question, "text", _("Question text"), question.text, text, 500,
                                                lines=2)
        if kinds.kind_of(question).has_options(question.mechanism_name):
            for option in question.ordered_options():
                label = next((t.label for t in option.translations.all() if t.language == language), "")
                found[f"option-{option.pk}"] = Text(
                    option, "label", _("Option %(i)d") % {"i": option.order + 1}, option.label,
                    label or shipped(option.label, language), 200)
    return found


class TranslationForm(forms.Form):
    def __init__(self, texts: dict[str, Text], language: str, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        for name, text in texts.items():
            # The box reads in the language typed into it; the default's text beside it describes it.
            attrs = {"lang": language, "dir": _direction(language), "aria-describedby": f"id_{name}_source"}
            self.fields[name] = forms.CharField(
                label=text.label, initial=text.text, required=text.required, max_length=text.longest,
                widget=forms.Textarea(attrs={**attrs, "rows": text.lines}) if text.lines else forms.TextInput(attrs))


    def clean(self) -> dict[str, Any] | None:
        """A box missing from the post (the survey gained a question or option since the page was loaded) is
        refused, not taken as cleared."""
        if any(name not in self.data for name in self.fields):
            raise forms.ValidationError(_("The survey's questions changed since this page was loaded: reload it "
                                          "(nothing was saved)."))
        return super().clean()

    def split(self, texts: dict[str, Text]) -> tuple[dict[str, str], dict[Question | Option, str]]:
        """The survey's own texts by column, then each question's or option's by its row (stripped)."""
        own = {text.column: self.cleaned_data[name].strip() for name, text in texts.items() if text.row is None}
        rows = {text.row: self.cleaned_data[name].strip() for name, text in texts.items() if text.row is not None}
        return own, rows


def _direction(language: str) -> str:
    return "rtl" if language in settings.LANGUAGES_BIDI else "ltr"


def translate_view(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str, language: str) -> HttpResponse:
    """GET: the survey's texts in `language`, each beside the default's; POST: save them all, or none
    (400 with each field's error)."""
    survey = model_admin.get_object(request, object_id)
    if survey is None:
        raise Http404
    if not model_admin.has_change_permission(request, survey):
        raise PermissionDenied
    if language == survey.language or language not in dict(settings.LANGUAGES):
        raise Http404  # not a language the survey could be translated into
    texts = _texts(survey, language)
    form = TranslationForm(texts, language, request.POST if request.method == "POST" else None)
    if form.is_valid():
        with transaction.atomic(), recorder.recording(request.user, survey.pk):
            languages.store(survey, language, *form.split(texts))
        model_admin.message_user(request, _("%(language)s texts saved.") % {"language": languages.name(language, True)},
                                 messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:collection_survey_change", args=[survey.pk]))
    return TemplateResponse(request, "admin/collection/translate.html", {
        **model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, "survey": survey,
        "form": form, "sections": _sections(form, texts), "source_language": survey.language,
        "source_direction": _direction(survey.language), "source_name": languages.name(survey.language),
        "title": _("%(language)s texts of %(survey)s") % {"language": languages.name(language, True), "survey": survey},
    }, status=400 if form.is_bound else 200)


def _sections(form: TranslationForm, texts: dict[str, Text]) -> list[tuple[str, list[tuple[Any, Text]]]]:
    """The page's sections: the survey's own texts, then one per question (its text, then its options)."""
    sections: list[tuple[str, list[tuple[Any, Text]]]] = [(_("The survey"), [])]
    for name, text in texts.items():
        if isinstance(text.row, Question):
            sections.append((_("Question %(n)d") % {"n": text.row.order}, []))
        sections[-1][1].append((form[name], text))
    return sections

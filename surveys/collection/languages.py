"""A survey's languages: which one a respondent reads it in, its texts in that language, and
what an offered language still lacks (the Open action refuses until nothing does).

An admin's translation of a language is stored whole or not at all (`store`). Texts are read beside
the plan, never into it: the plan (its memo, its version digest) is the
same in every language, and the chosen language is never sent back or stored with a report.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _

from . import kinds
from .models import Option, OptionTranslation, Question, QuestionTranslation, Survey, SurveyTranslation
from .plan import PlannedQuestion


@dataclass(frozen=True)
class Texts:
    """A survey's words in one language (questions and options by id; absent: the default's)."""

    language: str
    languages: tuple[str, ...]  # offered: the default first
    title: str
    description: str
    consent: str
    questions: dict[int, str]
    options: dict[int, str]


def offered(survey: Survey) -> tuple[str, ...]:
    """The survey's default language, then its translations' in code order."""
    others = sorted(row.language for row in survey.translations.all() if row.language != survey.language)
    return (survey.language, *others)


def choose(survey: Survey, asked: str | None, request: HttpRequest | None = None) -> str:
    """`asked` (?lang=) if offered, else the browser's preference (Accept-Language or the language
    cookie, as LocaleMiddleware reads it) if offered, else the survey's default."""
    languages = offered(survey)
    if asked in languages:
        return asked
    preferred = translation.get_language_from_request(request) if request is not None else None
    return preferred if preferred in languages else survey.language


def unmet(survey: Survey, asked: str | None, request: HttpRequest) -> str | None:
    """The browser's language when the survey lacks it and this app speaks it (so the page can say, in that
    language, which language it shows instead); None when nothing was asked of it, or it was met."""
    if asked is not None:
        return None  # a language chosen in the picker: the respondent knows what they read
    preferred = translation.get_language_from_request(request)
    return preferred if preferred not in offered(survey) else None


def texts(survey: Survey, language: str) -> Texts:
    """The survey's texts in `language` (one of `offered`)."""
    languages = offered(survey)
    if language == survey.language:
        return Texts(language, languages, survey.title, survey.description, survey.consent, {}, {})
    row = SurveyTranslation.objects.get(survey=survey, language=language)
    questions = dict(QuestionTranslation.objects.filter(question__survey=survey, language=language)
                     .values_list("question_id", "text"))
    options = dict(OptionTranslation.objects.filter(option__question__survey=survey, language=language)
                   .values_list("option_id", "label"))
    return Texts(language, languages, row.title, row.description, row.consent, questions, options)


def localized(questions: tuple[PlannedQuestion, ...], found: Texts) -> tuple[PlannedQuestion, ...]:
    """The plan's questions with their text and labels in `found`'s language (the mechanisms untouched)."""
    option_ids = _option_ids([question.id for question in questions]) if found.options else {}
    result = []
    for question in questions:
        options, kind = question.options, kinds.kind_of(question)
        if kind.fixed_labels:
            with translation.override(found.language):
                # Django's own catalog says these (No, Yes) in every interface language
                options = tuple(_(label) for label in kind.fixed_labels)
        elif options and question.id in option_ids:
            options = tuple(found.options.get(pk, label) for pk, label in zip(option_ids[question.id], options,
                                                                               strict=True))
        result.append(dataclasses.replace(question, text=found.questions.get(question.id, question.text),
                                          options=options))
    return tuple(result)


def _option_ids(question_ids: list[int]) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for pk, question_id in (Option.objects.filter(question_id__in=question_ids).order_by("question_id", "order")
                            .values_list("id", "question_id")):
        found.setdefault(question_id, []).append(pk)
    return found


# Interface languages that write a language's name in lower case inside a sentence ("no está disponible en
# español", "textes en anglais"); the catalogs' names are capitalised, as a list or a heading shows them.
LOWER_CASE_NAMES = frozenset({"es", "fr", "it", "pt", "ca"})


def name(code: str, in_sentence: bool = False) -> str:
    """A language's name in the interface's language, with its code: “Spanish (es)”; `in_sentence`: as a
    sentence of that language writes it (“español (es)”)."""
    found = str(dict(settings.LANGUAGES).get(code, code))  # the names are lazily translated
    return f"{inside_a_sentence(found) if in_sentence else found} ({code})"


def inside_a_sentence(language_name: str) -> str:
    """A language's name (in the active language) as written inside one of its sentences."""
    if (translation.get_language() or "").split("-")[0] in LOWER_CASE_NAMES:
        return language_name[:1].lower() + language_name[1:]
    return language_name


def missing(survey: Survey) -> list[str]:
    """Every offered language's missing texts, in words an admin can act on (empty: none)."""
    found = []
    questions = list(survey.ordered_questions().prefetch_related("translations", "options__translations"))
    for row in survey.translations.all():
        if row.language == survey.language or row.language not in dict(settings.LANGUAGES):
            found.append(_("%(language)s cannot be a translation of this survey")
                         % {"language": name(row.language, True)})
            continue
        lacking = _lacking(survey, row, questions)
        if lacking:
            found.append(_("no %(language)s text for %(what)s") % {"language": name(row.language, True),
                                                                  "what": ", ".join(lacking)})
    return found


def _lacking(survey: Survey, row: SurveyTranslation, questions: list) -> list[str]:
    lacking = [what for what, default, text in (
        (_("the title"), survey.title, row.title), (_("the description"), survey.description, row.description),
        (_("the consent text"), survey.consent, row.consent)) if default.strip() and not text.strip()]
    for question in questions:
        if not any(t.language == row.language and t.text.strip() for t in question.translations.all()):
            lacking.append(_("question %(n)d") % {"n": question.order})
        if not kinds.kind_of(question).respondents_see_options(question.mechanism_name):
            continue  # none, or a direct number's bins: the analysis's, never shown
        for i, option in enumerate(question.ordered_options(), start=1):
            if not any(t.language == row.language and t.label.strip() for t in option.translations.all()):
                lacking.append(_("question %(n)d option %(i)d “%(label)s”") % {"n": question.order, "i": i,
                                                                               "label": option.label})
    return lacking


@transaction.atomic
def store(survey: Survey, language: str, own: dict[str, str], texts: dict[Question | Option, str]) -> None:
    """Offer `survey` in `language` with its own texts `own` (title, description, consent), and write each
    question's text and option's label in `texts`; an empty one removes that translation."""
    SurveyTranslation.objects.update_or_create(survey=survey, language=language, defaults=own)
    for row, text in texts.items():
        model, key, column = ((QuestionTranslation, "question", "text") if isinstance(row, Question)
                              else (OptionTranslation, "option", "label"))
        which: dict[str, Any] = {key: row, "language": language}
        if text:
            model.objects.update_or_create(**which, defaults={column: text})
        else:
            model.objects.filter(**which).delete()


@transaction.atomic
def withdraw(offer: SurveyTranslation) -> None:
    """Stop offering a language, its questions' and options' texts gone with it (added again, it starts empty)."""
    QuestionTranslation.objects.filter(question__survey=offer.survey_id, language=offer.language).delete()
    OptionTranslation.objects.filter(option__question__survey=offer.survey_id, language=offer.language).delete()
    offer.delete()

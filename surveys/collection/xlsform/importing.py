"""Importing an XLSForm: the survey it describes made as the admin would make it (`builder.create_survey`, then
its translations), its budget checked as the admin checks it, recorded in the configuration history, and
opened after the Open button's checks when asked. One transaction: a refused form stores nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

import ldp
from surveys.history import recorder

from .. import lifecycle, plan, researchers
from ..builder import create_survey
from ..models import Option, OptionTranslation, QuestionTranslation, Survey, SurveyTranslation
from . import reading
from .mapping import SETTINGS, SURVEY, Problem
from .reading import Form, Refused


@dataclass(frozen=True)
class Imported:
    survey: Survey
    warnings: list[str]


def import_form(source: Any, *, slug: str | None = None, open_it: bool = False, skip_unsupported: bool = False,
                user: Any = None, who: str = "") -> Imported:
    """The survey the form in `source` describes (a draft, or open with `open_it`); Refused with every problem."""
    form = reading.read(source, skip_unsupported=skip_unsupported)
    slug = slug or form.slug
    _check_survey(form, slug)
    try:
        return _create(form, slug, open_it, user, who)
    except IntegrityError:  # the same slug taken since it was checked
        raise Refused([Problem(SETTINGS, 2, "form_id", _("a survey with the slug “%(slug)s” exists")
                               % {"slug": slug})]) from None


@transaction.atomic
def _create(form: Form, slug: str, open_it: bool, user: Any, who: str) -> Imported:
    """One transaction: a refusal (over budget, the Open checks) leaves nothing behind."""
    survey = create_survey(slug, form.title, [q.spec for q in form.questions], **form.fields)
    _translate(survey, form)
    if user is not None:  # as the admin's own form preselects them for a new survey
        survey.researchers.add(*researchers.preselected(user))
    _check_budget(survey)
    if open_it:
        try:
            lifecycle.open_survey(survey)
        except ValidationError as error:
            raise Refused([Problem(SURVEY, None, None, message) for message in error.messages]) from None
    found = recorder.Recording(user, who)
    found.watch_new(survey.pk)
    found.record()
    return Imported(survey, form.warnings)


def _check_survey(form: Form, slug: str) -> None:
    problems = []
    try:
        validate_slug(slug)
    except ValidationError:
        problems.append(Problem(SETTINGS, 2, "form_id", _("“%(slug)s” cannot be a survey's slug: letters, digits, _ "
                                                          "and - only") % {"slug": slug}))
    if Survey.objects.filter(slug=slug).exists():
        problems.append(Problem(SETTINGS, 2, "form_id", _("a survey with the slug “%(slug)s” exists") % {"slug": slug}))
    if not form.title.strip():
        problems.append(Problem(SETTINGS, 2, "form_title", _("the form has no title")))
    if problems:
        raise Refused(problems)


def _check_budget(survey: Survey) -> None:
    """Over the budget: refused as the admin refuses saving it."""
    current = plan.of(survey)
    try:
        ldp.check_budget(current.mechanisms, survey.epsilon_budget)
    except ldp.BudgetExceeded as error:
        raise Refused([Problem(SETTINGS, 2, "epsilon_budget", _("over the survey's privacy budget: %(error)s")
                               % {"error": error})]) from None


def _translate(survey: Survey, form: Form) -> None:
    """The form's other languages, each whole (the labels were checked complete when read)."""
    questions = list(survey.ordered_questions())
    for language, texts in form.translations.items():
        SurveyTranslation.objects.create(survey=survey, language=language, **texts)
    QuestionTranslation.objects.bulk_create(
        QuestionTranslation(question=question, language=language, text=text, hint=read.hints.get(language, ""))
        for question, read in zip(questions, form.questions, strict=True) for language, text in read.texts.items())
    options = {(o.question_id, o.order): o for o in Option.objects.filter(question__survey=survey)}
    OptionTranslation.objects.bulk_create(
        OptionTranslation(option=options[question.pk, j], language=language, label=label)
        for question, read in zip(questions, form.questions, strict=True)
        for language, labels in read.options.items() for j, label in enumerate(labels))

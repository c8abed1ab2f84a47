"""A survey written back as an XLSForm: its sheets as rows (the JSON export, which `reading` also imports), and
the same sheets as an .xlsx workbook. Importing either gives the same survey: questions and their names,
mechanisms with their exact parameters (in the privacy column), options, scores, bins, hints, translations,
consent and the budget."""

from __future__ import annotations

from io import BytesIO
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from openpyxl import Workbook

from ldp.mechanisms import exact_q

from .. import kinds, scales, skip_logic, variable_names
from ..kinds import yes_no
from ..models import Question, Survey
from . import privacy
from .mapping import column

Row = dict[str, str]
YES_NO_LIST = "yes_no"


def sheets(survey: Survey) -> dict[str, list[Row]]:
    """The survey's XLSForm sheets, each a list of rows (column header -> cell): the JSON export."""
    languages = [survey.language, *sorted(t.language for t in survey.translations.all()
                                          if t.language != survey.language)]
    questions = list(survey.ordered_questions().prefetch_related("translations", "options__translations"))
    survey_rows, choice_rows = [], []
    if any(kinds.kind_of(q).fixed_labels for q in questions):
        choice_rows += _yes_no_choices(languages)
    for question in questions:
        survey_rows.append(_question_row(question, languages))
        choice_rows += _choices(question, languages)
    return {"survey": survey_rows, "choices": choice_rows, "settings": [_settings(survey, languages)]}


def workbook(survey: Survey) -> bytes:
    """The same sheets as an .xlsx file."""
    book = Workbook()
    book.remove(book.active)
    for name, rows in sheets(survey).items():
        sheet = book.create_sheet(name)
        headers = list(dict.fromkeys(key for row in rows for key in row))
        sheet.append(headers)
        for row in rows:
            sheet.append([row.get(header, "") for header in headers])
    found = BytesIO()
    book.save(found)
    return found.getvalue()


def _texts(languages: list[str], own: str, translated: dict[str, str], base: str) -> Row:
    """One text's columns, the default language's first; an empty translation writes nothing."""
    found = {column(base, languages[0]): own} if own else {}
    found.update({column(base, lang): translated[lang] for lang in languages[1:] if translated.get(lang)})
    return found


def _question_row(question: Question, languages: list[str]) -> Row:
    kind = kinds.kind_of(question)
    translations = list(question.translations.all())
    row: Row = {"type": _type(question, kind), "name": variable_names.key(question.name, question.order),
                **_texts(languages, question.text, {t.language: t.text for t in translations}, "label"),
                **_texts(languages, question.hint, {t.language: t.hint for t in translations}, "hint"),
                "required": "yes"}
    if question.relevant:
        row["relevant"] = question.relevant
    if kind.scale:
        row["constraint"] = f". >= {scales.exact(question.lo)} and . <= {scales.exact(question.hi)}"
    row["privacy"] = privacy.written(_privacy(question, kind))
    return row


def _type(question: Question, kind: kinds.Kind) -> str:
    if kind.scale:
        whole = all(scales.exact(x) == scales.exact(x).to_integral_value() for x in (question.lo, question.step))
        return "integer" if whole else "decimal"
    if kind.fixed_labels:
        return f"select_one {YES_NO_LIST}"
    return f"{'select_multiple' if kind.many else 'select_one'} {variable_names.key(question.name, question.order)}"


def _privacy(question: Question, kind: kinds.Kind) -> privacy.Privacy:
    word = "direct" if question.mechanism_name == "direct_number" else question.mechanism_name
    grid: dict[str, Any] = {}
    if kind.scale:
        grid = {key: str(scales.exact(getattr(question, key))) for key in ("lo", "hi", "step")}
        if kind.has_options(question.mechanism_name):
            grid["bins"] = tuple(str(scales.exact(o.lower)) for o in question.ordered_options())
    q = None if question.q is None else exact_q.text(question.q)  # exactly as stored: "0.5", "2/3"
    return privacy.Privacy(word, q=q, epsilon=question.epsilon,
                           at_most=question.at_most, **grid)


def _choices(question: Question, languages: list[str]) -> list[Row]:
    kind = kinds.kind_of(question)
    if kind.fixed_labels or kind.scale:
        return []
    options = question.ordered_options()
    found = []
    names = skip_logic.choice_names([o.label for o in options], [o.name for o in options])
    for option, name in zip(options, names, strict=True):
        row: Row = {"list_name": variable_names.key(question.name, question.order), "name": name,
                    **_texts(languages, option.label, {t.language: t.label for t in option.translations.all()},
                             "label")}
        if kind.scored:
            row["score"] = "" if option.score is None else str(scales.exact(option.score))
        if kind.many:
            row["exclusive"] = "yes" if option.exclusive else ""
        found.append(row)
    return found


def _yes_no_choices(languages: list[str]) -> list[Row]:
    """The one list every yes/no question shares: no, then yes (report value 1 means yes)."""
    found = []
    for name, label in zip(("no", "yes"), yes_no.KIND.fixed_labels, strict=True):
        texts = {}
        for lang in languages:
            with translation.override(lang):
                texts[column("label", lang)] = _(label)
        found.append({"list_name": YES_NO_LIST, "name": name, **texts})
    return found


def _settings(survey: Survey, languages: list[str]) -> Row:
    others = {t.language: t for t in survey.translations.all() if t.language != survey.language}
    row: Row = {"form_title": survey.title, "form_id": survey.slug,
                "default_language": f"{translation.get_language_info(survey.language)['name']} ({survey.language})",
                "epsilon_budget": repr(survey.epsilon_budget)}
    if survey.retention_days:
        row["retention_days"] = str(survey.retention_days)
    for base, key, own in (("form_title", "title", survey.title), ("description", "description", survey.description),
                           ("consent", "consent", survey.consent)):
        if base != "form_title" and own:
            row[base] = own
        row.update({column(base, lang): getattr(t, key) for lang, t in others.items() if getattr(t, key)})
    return row

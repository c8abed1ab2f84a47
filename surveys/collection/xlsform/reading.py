"""Reading an XLSForm with pyxform (the reference implementation of XLSForm) into a `Form`: the survey's
settings, its languages and its questions (`mapping`), or every problem found, by sheet, row and column.

pyxform reads the workbook (or the same sheets as JSON, as `writing` exports them) and checks what XLSForm
itself requires (names, lists, types); it stops at its first error. This module then checks everything this
app asks of a form and lists every problem at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pyxform.errors import PyXFormError
from pyxform.xls2json import workbook_to_json
from pyxform.xls2json_backends import get_xlsform

import ldp

from .. import skip_logic, variable_names
from . import mapping
from .mapping import SETTINGS, SURVEY, Context, Imported, Problem

# Types whose answer this app cannot randomize, with the reason; `--skip-unsupported` drops them.
TEXT, PLACE = gettext_lazy("free text cannot be randomized"), gettext_lazy("a location cannot be randomized")
FILE, DATE = gettext_lazy("a photo or file cannot be randomized"), gettext_lazy("a date cannot be randomized")
UNSUPPORTED = {
    "text": TEXT, "barcode": TEXT, "geopoint": PLACE, "geotrace": PLACE, "geoshape": PLACE,
    "photo": FILE, "image": FILE, "audio": FILE, "video": FILE, "file": FILE, "date": DATE, "dateTime": DATE,
    "time": DATE, "calculate": gettext_lazy("a calculation has no answer to randomize"),
    "note": gettext_lazy("a note asks nothing"), "repeat": gettext_lazy("repeats are not supported"),
    "range": gettext_lazy("a range is not supported: use integer with a constraint"),
}
# Metadata a form may record about a device or a session: never collected here, dropped with a warning.
METADATA = {"start", "end", "today", "deviceid", "subscriberid", "simserial", "phonenumber", "username", "email",
            "audit", "start-geopoint", "background-audio", "instanceID"}
ASKED = {"select one", "select all that apply", "integer", "decimal"}
CODE = re.compile(r"\(([A-Za-z-]{2,10})\)\s*$")


class Refused(Exception):
    """A form that makes no survey: every problem found."""

    def __init__(self, problems: list[Problem]):
        super().__init__("; ".join(str(problem) for problem in problems))
        self.problems = problems


@dataclass
class Form:
    slug: str
    title: str
    language: str
    fields: dict[str, Any]  # the survey's other fields: description, consent, epsilon_budget
    translations: dict[str, dict[str, str]]  # language -> title, description, consent
    questions: list[Imported]
    warnings: list[str] = field(default_factory=list)


def read(source: Any, skip_unsupported: bool = False) -> Form:
    """The form in `source` (a path, bytes, a file, or the sheets as a dict); Refused with every problem."""
    try:
        data = get_xlsform(BytesIO(source) if isinstance(source, bytes) else source)
        if isinstance(source, dict):
            data.sheet_names = list(source)
        warnings: list[str] = []
        found = workbook_to_json(data, warnings=warnings)
    except PyXFormError as error:
        raise Refused([_pyxform_problem(error)]) from None
    except (OSError, ValueError, KeyError, TypeError) as error:  # not a workbook pyxform can read
        problem = Problem(SURVEY, None, None, _("not an XLSForm workbook (%(error)s)") % {"error": error})
        raise Refused([problem]) from None
    return _form(data, found, skip_unsupported)


def _pyxform_problem(error: PyXFormError) -> Problem:
    text = str(error)
    row = re.search(r"\[row : (\d+)\]", text)
    sheet = re.search(r"On the '(\w+)' sheet", text)
    return Problem(sheet.group(1) if sheet else SURVEY, int(row.group(1)) if row else None, None,
                   re.sub(r"^\[row : \d+\]\s*", "", text))


def _form(data: Any, found: dict[str, Any], skip_unsupported: bool) -> Form:
    problems: list[Problem] = []
    warnings: list[str] = []
    raw = list(data.survey or [])
    rows = {str(row.get("name", "")): n for n, row in enumerate(raw, start=2) if row.get("name")}
    choice_rows = {(str(row.get("list_name", "")), str(row.get("name", ""))): n
                   for n, row in enumerate(data.choices or [], start=2)}
    sheet_settings = dict((data.settings or [{}])[0]) if data.settings else {}
    language, others = _languages(found, sheet_settings, problems, warnings)
    context = Context(language, others, lambda value: _by_code(value, language), choice_rows)
    questions: list[mapping.Imported] = []
    named: list[str] = []
    for order, element in enumerate(_asked(found.get("children", []), problems, warnings, rows, skip_unsupported),
                                    start=1):
        before = tuple(named)  # the names before it, as `variable_names` compares them
        named.append(mapping.stored_name(element["name"], order))
        row = rows.get(element["name"], 0)
        cells = raw[row - 2] if row >= 2 else {}
        cell = str(cells.get("privacy", "")).strip()
        if not cell:
            problems.append(Problem(SURVEY, row, "privacy", _(
                "no privacy cell: say how this question is randomized (“direct” sends it as given)")))
            continue
        made = mapping.question(element, row, cell, context, problems, warnings, order=order, named=before,
                                relevant=str(cells.get("relevant", "")).strip())
        if made is not None:
            questions.append(made)
    problems += _condition_problems(questions)
    # A title translated in the settings sheet comes back from pyxform as {language: title}.
    slug, title = str(found.get("id_string") or ""), _by_code(found.get("title"), language).get(language, "")
    fields, translations = _settings(sheet_settings, title, language, others, problems)
    if not questions and not problems:
        problems.append(Problem(SURVEY, None, None, _("the form has no question this app can ask")))
    if problems:
        raise Refused(sorted(problems, key=lambda p: (p.sheet != SURVEY, p.sheet, p.row or 0)))
    return Form(slug, title, language, fields, translations, questions, warnings)


def _condition_problems(questions: list[Imported]) -> list[Problem]:
    """Each question's skip-logic condition checked against the form's questions, as the admin checks it."""
    known = [skip_logic.Known(variable_names.key(read.spec.name, order), order,
                              ldp.MECHANISMS[read.spec.mechanism].randomized)
             for order, read in enumerate(questions, start=1)]
    found = [(read.row, skip_logic.problem(read.spec.relevant, order, known))
             for order, read in enumerate(questions, start=1) if read.spec.relevant]
    return [Problem(SURVEY, row, "relevant", wrong) for row, wrong in found if wrong]


def _asked(children: list[dict[str, Any]], problems: list[Problem], warnings: list[str], rows: dict[str, int],
           skip: bool) -> list[dict[str, Any]]:
    """The questions to ask, groups flattened; unsupported types refused (or dropped with a warning)."""
    found = []
    for element in children:
        kind, name = element.get("type", ""), element.get("name", "")
        row = rows.get(name)
        if kind == "group":
            if (element.get("bind") or {}).get("relevant"):
                problems.append(Problem(SURVEY, row, "relevant", _(
                    "skip logic on a group is not supported: put the condition on each of its questions")))
            found += _asked(element.get("children", []), problems, warnings, rows, skip)
        elif kind in METADATA or name in METADATA:
            if row is not None:
                warnings.append(_("sheet survey, row %(row)d: %(name)s dropped (metadata is not collected here)")
                                % {"row": row, "name": name})
        elif kind in ASKED:
            found.append(element)
        else:
            reason = str(UNSUPPORTED.get(kind, _("this app has no question of this type")))
            message = _("%(name)s (%(type)s): %(reason)s") % {"name": name, "type": kind, "reason": reason}
            if skip:
                warnings.append(_("sheet survey, row %(row)s: dropped %(what)s") % {"row": row, "what": message})
            else:
                problems.append(Problem(SURVEY, row, "type", message + _(
                    " (drop it with --skip-unsupported, or the box on the import page)")))
    return found


def language_code(key: str | None) -> str | None:
    """The interface language a pyxform language names: "Español (es)" -> es, "es" -> es; None if none."""
    if not key or key == "default":
        return None
    found = CODE.search(key)
    code = (found.group(1) if found else key.strip()).lower()
    return code if code in dict(settings.LANGUAGES) else None


def _languages(found: dict[str, Any], sheet: dict[str, Any], problems: list[Problem],
               warnings: list[str]) -> tuple[str, tuple[str, ...]]:
    """The default language and the others the form's labels are in (those the app speaks)."""
    named: set[str] = set()
    for element in _walk(found.get("children", [])):
        for value in (element.get("label"), *(c.get("label") for c in element.get("choices") or [])):
            if isinstance(value, dict):
                named.update(value)
    default_key = found.get("default_language")
    default = language_code(default_key) if default_key and default_key != "default" else None
    if default_key and default_key != "default" and default is None:
        problems.append(Problem(SETTINGS, 2, "default_language", _(
            "%(language)s is not a language this app speaks (%(codes)s)")
            % {"language": default_key, "codes": ", ".join(dict(settings.LANGUAGES))}))
    codes = {key: language_code(key) for key in named}
    for key, code in sorted(codes.items()):
        if code is None and key != "default" and key != default_key:
            warnings.append(_("the %(language)s columns are skipped: not a language this app speaks")
                            % {"language": key})
    spoken = sorted({code for code in codes.values() if code})
    language = default or (spoken[0] if spoken and "default" not in named else settings.LANGUAGE_CODE[:2])
    return language, tuple(code for code in spoken if code != language)


def _walk(children: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for element in children:
        found.append(element)
        found += _walk(element.get("children", []))
    return found


def _by_code(value: Any, language: str) -> dict[str, str]:
    """A pyxform text ({language: text}, or a string in the default language) by language code."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        return {language: str(value)}
    found: dict[str, str] = {}
    for key, text in value.items():
        code = language if key == "default" else language_code(key)
        if code is not None and str(text).strip():
            found.setdefault(code, str(text))
    return found


def _settings(sheet: dict[str, Any], title: str, language: str, others: tuple[str, ...],
              problems: list[Problem]) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    """The survey's description, consent and budget, and its title, description and consent per language."""
    texts: dict[str, dict[str, str]] = {"form_title": {}, "description": {}, "consent": {}}
    for key, value in sheet.items():
        base, _sep, lang = str(key).partition("::")
        if base in texts and str(value).strip():
            code = language_code(lang) if lang else language
            if code is not None:
                texts[base][code] = str(value).strip()
    texts["form_title"].setdefault(language, title)
    fields: dict[str, Any] = {"language": language, "description": texts["description"].get(language, ""),
                              "consent": texts["consent"].get(language, "")}
    budget = str(sheet.get("epsilon_budget", "")).strip()
    if budget:
        try:
            fields["epsilon_budget"] = float(budget)
        except ValueError:
            problems.append(Problem(SETTINGS, 2, "epsilon_budget", _("%(value)s is not a number") % {"value": budget}))
    days = str(sheet.get("retention_days", "")).strip()  # required to open, as in the admin
    if days:
        if days.isdigit() and int(days) >= 1:
            fields["retention_days"] = int(days)
        else:
            problems.append(Problem(SETTINGS, 2, "retention_days", _("%(value)s is not a whole number of days")
                                    % {"value": days}))
    translations = {}
    for lang in others:
        translations[lang] = {"title": texts["form_title"].get(lang, ""),
                              "description": texts["description"].get(lang, ""),
                              "consent": texts["consent"].get(lang, "")}
        for base, key in (("form_title", "title"), ("description", "description"), ("consent", "consent")):
            if texts[base].get(language) and not translations[lang][key]:
                problems.append(Problem(SETTINGS, 2, mapping.column(base, lang), _("no %(what)s in %(language)s")
                                        % {"what": base, "language": lang}))
    return fields, translations

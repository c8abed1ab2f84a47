"""One XLSForm question (as pyxform read it) made into the question an admin would have typed: its kind from
its type and its privacy cell, its mechanism and parameters, its options (levels with scores, bins).

| XLSForm type    | privacy cell                                    | kind          |
|-----------------|-------------------------------------------------|---------------|
| select_one      | qrr q=… / bitflip epsilon=… (two choices)       | yes_no        |
| select_one      | krr / sue / oue epsilon=…, direct               | single_choice |
| select_one      | krr / sue / oue epsilon=… (choices with score)  | ordinal       |
| select_multiple | multiselect epsilon=… [at_most=…]               | multi_select  |
| integer/decimal | onebit / dlaplace epsilon=…, krr … bins=…, direct | numeric     |

Each problem is a `Problem` naming the sheet, row and column; nothing is raised.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.translation import gettext as _

from ldp.mechanisms import exact_q

from .. import kinds, scales, variable_names
from ..builder import QuestionSpec
from ..kinds import MAX_OPTIONS, multi_select, numeric, ordinal, single_choice, yes_no
from ..models.exact_q import check_carried
from . import privacy

SURVEY, CHOICES, SETTINGS = "survey", "choices", "settings"
BOUNDS = re.compile(r"^\s*\.\s*>=\s*(-?[0-9.]+)\s+and\s+\.\s*<=\s*(-?[0-9.]+)\s*$")
TRUE = {"yes", "true", "true()", "1"}


def stored_name(name: str, order: int) -> str:
    """The name a question keeps: blank for its own default key q<order> (however cased), so that a form written
    from unnamed questions comes back unnamed; else the form's name, which `variable_names` checks."""
    return "" if name.casefold() == f"q{order}" else name


def column(base: str, language: str) -> str:
    """A translated column's header, as the export writes it: label::Spanish (es)."""
    return f"{base}::{translation.get_language_info(language)['name']} ({language})"


@dataclass(frozen=True)
class Problem:
    sheet: str
    row: int | None
    column: str | None
    message: str

    def __str__(self) -> str:
        where = [_("sheet %(sheet)s") % {"sheet": self.sheet}]
        if self.row is not None:
            where.append(_("row %(row)d") % {"row": self.row})
        if self.column:
            where.append(_("column %(column)s") % {"column": self.column})
        return f"{', '.join(where)}: {self.message}"


@dataclass
class Imported:
    """A question read: what the builder makes it from, and its texts in the survey's other languages."""

    spec: QuestionSpec
    row: int
    texts: dict[str, str] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)
    options: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Context:
    """What mapping a question needs from the rest of the form: the default language, the others, how a
    pyxform text (a string or {language: text}) reads in each, and where choices are."""

    language: str
    others: tuple[str, ...]
    texts: Callable[[Any], dict[str, str]]
    choice_rows: dict[tuple[str, str], int]
    privacy_column: str = "privacy"


def question(element: dict[str, Any], row: int, cell: str, context: Context, problems: list[Problem],
             warnings: list[str], *, order: int, named: Sequence[str] = (), relevant: str = "") -> Imported | None:
    """The question `element` makes as the survey's question `order`, after questions named `named`, or None with
    its problems added."""
    before = len(problems)

    def refuse(column: str | None, message: str) -> None:
        problems.append(Problem(SURVEY, row, column, message))

    name = stored_name(element["name"], order)
    wrong = variable_names.problem(name, named)
    if wrong:
        refuse("name", wrong)
    try:
        asked = privacy.parse(cell)
    except ValueError as error:
        refuse(context.privacy_column, str(error))
        return None
    labels = context.texts(element.get("label"))
    hints = context.texts(element.get("hint"))
    _check_texts(labels, context, refuse, "label")
    shape = _shape(element, asked, context, refuse, problems, warnings, row)
    if shape is None or len(problems) > before:
        return None
    kind, mechanism, options, extra = shape
    if options and not kind.scale:  # the names skip-logic conditions compare a choice with
        extra["choice_names"] = [str(choice.get("name", "")) for choice in element.get("choices") or []]
    spec = QuestionSpec(relevant=relevant, text=labels.get(context.language, ""), mechanism=mechanism, q=asked.q,
                        epsilon=asked.epsilon, options=[o[context.language] for o in options] if options else (),
                        kind=kind.name, name=name, hint=hints.get(context.language, ""), **extra)
    _check_mechanism(spec, kind, refuse, context.privacy_column)
    if len(problems) > before:
        return None
    return Imported(spec, row, texts={lang: labels.get(lang, "") for lang in context.others},
                    hints={lang: hints[lang] for lang in context.others if lang in hints},
                    options={lang: [o.get(lang, "") for o in options] for lang in context.others} if options else {})


def _check_texts(labels: dict[str, str], context: Context, refuse: Callable[[str | None, str], None],
                 base: str) -> None:
    for lang in (context.language, *context.others):
        if not labels.get(lang, "").strip():
            refuse(column(base, lang), _("no label in %(language)s") % {"language": lang})
        elif len(labels[lang]) > 500:
            refuse(column(base, lang), _("a label is at most 500 characters"))


Shape = tuple[kinds.Kind, str, list[dict[str, str]], dict[str, Any]]


def _shape(element: dict[str, Any], asked: privacy.Privacy, context: Context, refuse: Callable[[str | None, str], None],
           problems: list[Problem], warnings: list[str], row: int) -> Shape | None:
    """(kind, mechanism, options' labels by language, the builder's other fields)."""
    kind_word = element["type"]
    if kind_word in ("integer", "decimal"):
        return _numeric(element, asked, context, refuse)
    if asked.numeric:
        refuse(context.privacy_column, _("lo, hi, step and bins are for integer and decimal questions only"))
        return None
    choices = element.get("choices") or []
    if not 2 <= len(choices) <= MAX_OPTIONS:
        refuse("type", _("list %(list)s has %(k)d choices: a question needs 2 to %(max)d")
               % {"list": element.get("list_name", ""), "k": len(choices), "max": MAX_OPTIONS})
        return None
    options = [_choice_texts(choice, element, context, problems) for choice in choices]
    if kind_word == "select all that apply":
        exclusive = [o[context.language] for c, o in zip(choices, options, strict=True)
                     if str(c.get("exclusive", "")).strip().lower() in TRUE]
        return multi_select.KIND, asked.word, options, {"at_most": asked.at_most, "exclusive": exclusive}
    if asked.at_most is not None:
        refuse(context.privacy_column, _("at_most is for select_multiple questions only"))
        return None
    if asked.word in yes_no.KIND.mechanisms:
        return _yes_no(element, choices, asked, refuse, warnings, row)
    scores = [str(c.get("score", "")).strip() for c in choices]
    if any(scores):
        bad = [s for s in scores if s and scales.number(s) is None]
        if bad:
            refuse("score", _("a score is a number, not %(score)s") % {"score": bad[0]})
            return None
        return ordinal.KIND, asked.word, options, {"scores": [s or None for s in scores]}
    return single_choice.KIND, asked.word, options, {}


def _yes_no(element: dict[str, Any], choices: list[dict[str, Any]], asked: privacy.Privacy,
            refuse: Callable[[str | None, str], None], warnings: list[str], row: int) -> Shape | None:
    if len(choices) != 2:
        refuse("type", _("%(word)s is for a yes/no question: list %(list)s needs exactly two choices")
               % {"word": asked.word, "list": element.get("list_name", "")})
        return None
    names = [str(c["name"]).lower() for c in choices]
    if sorted(names) != ["no", "yes"]:
        warnings.append(_("sheet survey, row %(row)d: list %(list)s is read as No (its first choice) and Yes (its "
                          "second); the page shows No and Yes") % {"row": row, "list": element.get("list_name", "")})
    return yes_no.KIND, asked.word, [], {}


def _choice_texts(choice: dict[str, Any], element: dict[str, Any], context: Context,
                  problems: list[Problem]) -> dict[str, str]:
    labels = context.texts(choice.get("label"))
    row = context.choice_rows.get((element.get("list_name", ""), str(choice.get("name"))))
    problems += [Problem(CHOICES, row, column("label", lang), _("choice %(name)s of list %(list)s has no label in "
                                                           "%(language)s")
                         % {"name": choice.get("name"), "list": element.get("list_name"), "language": lang})
                 for lang in (context.language, *context.others) if not labels.get(lang, "").strip()]
    return labels


def _numeric(element: dict[str, Any], asked: privacy.Privacy, context: Context,
             refuse: Callable[[str | None, str], None]) -> Shape | None:
    lo, hi = asked.lo, asked.hi
    constraint = str((element.get("bind") or {}).get("constraint", "")).strip()
    if (lo is None or hi is None) and constraint:
        found = BOUNDS.match(constraint)
        if found is None:
            refuse("constraint", _("read as the answer's bounds, the constraint must be “. >= LO and . <= HI”"))
            return None
        lo, hi = lo or found.group(1), hi or found.group(2)
    step = asked.step or ("1" if element["type"] == "integer" else None)
    if lo is None or hi is None or step is None:
        refuse(context.privacy_column, _("a number needs lo and hi (in the privacy cell, or the constraint "
                                         "“. >= LO and . <= HI”), and a decimal its step"))
        return None
    mechanism = "direct_number" if asked.word == "direct" else asked.word
    scale = scales.scale_of(Decimal(lo), Decimal(hi), Decimal(step))
    extra: dict[str, Any] = {"scale": (lo, hi, step)}
    if not numeric.KIND.has_options(mechanism):
        if asked.bins:
            refuse(context.privacy_column, _("bins are for krr and direct numbers only"))
        return numeric.KIND, mechanism, [], extra
    if scale is None:
        refuse(context.privacy_column, _("lo, hi and step do not make a grid"))
        return None
    edges = list(asked.bins) or default_bins(scale)
    problems = scales.bin_problems(scale, [Decimal(edge) for edge in edges])
    if problems:
        refuse(context.privacy_column, " ".join(problems))
        return None
    exact = [Decimal(edge) for edge in edges]  # labelled as the admin's bins without labels are, in every language
    options = [dict.fromkeys((context.language, *context.others), scales.bin_label(scale, exact, j))
               for j in range(len(edges))]
    return numeric.KIND, mechanism, options, {**extra, "edges": edges}


def default_bins(scale: scales.Scale) -> list[str]:
    """A direct number's bins when the cell names none: the grid in five bins of (nearly) equal width."""
    steps = scale.steps
    indexes = sorted({round(i * steps / 5) for i in range(5)} - {steps})
    return [str(scales.exact(scale.lo + i * scale.step)) for i in indexes]


def _check_mechanism(spec: QuestionSpec, kind: kinds.Kind, refuse: Callable[[str | None, str], None],
                     column: str) -> None:
    """The kind's own checks, as the admin's form makes them (the same words)."""
    q = None if spec.q is None else exact_q.read(spec.q)  # exactly as typed ("2/3"), as the model stores it
    if q is not None:
        try:
            check_carried(q)  # the admin's q box refuses it in the same words
        except ValidationError as error:
            refuse(column, " ".join(error.messages))
            return
    lo, hi, step = (Decimal(x) for x in spec.scale) if spec.scale else (None, None, None)
    errors = kind.mechanism_errors(spec.mechanism, q, spec.epsilon) or kind.shape_errors(lo, hi, step, spec.at_most)
    if errors:
        refuse(column, " ".join(str(message) for message in errors.values()))
        return
    options = max(len(spec.options), (spec.at_most or 0) + 1) if kind.has_options(spec.mechanism) else 2
    try:
        kinds.build_mechanism(spec.mechanism, kind.name, q, spec.epsilon, options,
                              scale=scales.scale_of(lo, hi, step), at_most=spec.at_most)
    except (ValueError, TypeError) as error:
        refuse(column, str(error))
    if kind.many and spec.exclusive:
        problem = kind.exclusive_problem([label in spec.exclusive for label in spec.options])
        if problem:
            refuse("exclusive", str(problem))

"""Skip logic's rules in this app: what a condition may refer to (earlier questions asked directly, never a
randomized one: whether a follow-up was asked would reveal the randomized answer), the values conditions compare
(a direct choice's XLSForm name, a direct number's number) and which questions a response was asked.

The syntax and its evaluation are `relevance`'s; the browser judges the same conditions (static/js/relevance.js),
and the submission checks them again on the direct answers it receives.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

import ldp

from . import relevance, variable_names


@dataclass(frozen=True)
class Known:
    """What a condition may know of a question of its survey: its key, its place and whether it is randomized."""

    key: str
    order: int
    randomized: bool


def choice_names(labels: Sequence[str], names: Sequence[str]) -> list[str]:
    """Each option's XLSForm choice name: its own (as imported), else one made from its label as the export writes
    it (north_east for “North-east”), made unique with c<j>_."""
    found: list[str] = []
    for j, (label, name) in enumerate(zip(labels, names, strict=True), start=1):
        if not name:
            plain = unicodedata.normalize("NFKD", label).encode("ascii", "ignore").decode()
            name = re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")[:40] or f"c{j}"
            if not name[0].isalpha() or name in found:
                name = f"c{j}_{name}"
        found.append(name)
    return found


def problem(condition: str, order: int, questions: Iterable[Known]) -> str | None:
    """What is wrong with question `order`'s condition among the survey's `questions`, in words; None if nothing."""
    try:
        names = relevance.references(relevance.parse(condition))
    except relevance.ConditionError as error:
        return _("the condition cannot be read: %(error)s") % {"error": error}
    by_key = {question.key: question for question in questions}
    for name in names:
        found = by_key.get(name)
        if found is None:
            return _("the condition refers to ${%(name)s}, but no question is named %(name)s") % {"name": name}
        if found.order >= order:
            return _("the condition refers to ${%(name)s}, which is not asked before this question: a condition "
                     "may only refer to earlier questions (no cycles)") % {"name": name}
        if found.randomized:
            return _("the condition refers to ${%(name)s}, a randomized question: whether a follow-up was asked "
                     "would reveal the randomized answer. Refer to questions asked directly only.") % {"name": name}
    return None


def question_problem(question: Any) -> str | None:
    """A question's condition checked against its survey's other questions as stored (the admin's form)."""
    if question.survey_id is None:
        return None
    others = type(question).objects.filter(survey_id=question.survey_id).exclude(pk=question.pk)
    known = [Known(variable_names.key(name, order), order, ldp.MECHANISMS[mechanism].randomized)
             for name, order, mechanism in others.values_list("name", "order", "mechanism_name")]
    return problem(question.relevant, question.order, known)


def value_of(question: Any, stored: int) -> relevance.Value:
    """A direct question's answer as conditions compare it, from its stored value (`plan.PlannedQuestion`)."""
    if question.scale is not None:
        return question.scale.lo + question.scale.step * stored
    return question.choices[stored] if stored < len(question.choices) else None


def shown(question: Any, answers: Mapping[str, relevance.Value]) -> bool:
    """Whether a planned question is asked, given the direct answers above it (`answers`, by key: see `note`)."""
    return question.condition is None or relevance.holds(question.condition, answers)


def note(question: Any, answers: dict[str, relevance.Value], stored: int | None) -> None:
    """Keep a direct question's answer (None: not asked, XLSForm's empty) for the conditions below it."""
    if not question.randomized:
        answers[question.key] = None if stored is None else value_of(question, stored)


SIGNS = {"=": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}


def words(question: Any, questions: Iterable[Any]) -> str:
    """A question's condition as a reader of its results meets it: each direct choice by its label ("kids: Yes"), a
    number compared with its sign ("age < 30"); empty for a question asked of everyone."""
    if question.condition is None:
        return ""
    labels = {q.key: dict(zip(q.choices, q.options, strict=False)) for q in questions if q.choices}
    return _words(question.condition, labels)


def _words(node: relevance.Node, labels: Mapping[str, Mapping[str, str]]) -> str:
    op, args = node.op, node.args
    parts = [_words(arg, labels) if isinstance(arg, relevance.Node) else str(arg) for arg in args]
    if op in ("and", "or"):
        joined = _(" and ") if op == "and" else _(" or ")
        return joined.join(f"({part})" if isinstance(arg, relevance.Node) and arg.op in ("and", "or")
                           and arg.op != op else part for arg, part in zip(args, parts, strict=True))
    if op == "not":
        return _("not (%(condition)s)") % {"condition": parts[0]}
    if op == "ref":
        return parts[0]
    if op == "str":
        return f"“{parts[0]}”"
    if op == "num":
        return parts[0]
    left, right = args[0], args[1]
    ref = left if isinstance(left, relevance.Node) and left.op == "ref" else None
    value = right.args[0] if isinstance(right, relevance.Node) and right.op == "str" else None
    value = args[1] if op == "selected" else value
    if ref is not None and value is not None and op in ("=", "!=", "selected"):
        name = str(ref.args[0])
        label = labels.get(name, {}).get(str(value), str(value))
        return f"{name}: {label}" if op != "!=" else _("%(name)s: not %(label)s") % {"name": name, "label": label}
    return f"{parts[0]} {SIGNS[op]} {parts[1]}"

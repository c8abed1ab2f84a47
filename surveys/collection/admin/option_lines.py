"""A question's options as the admin types them, one per line, for every kind of question.

- single choice, multi-select: one label per line;
- ordinal: one level per line, "Agree = 4" with its score, or no scores at all (then 1, 2, 3...);
- numeric with bins (k-ary randomized response): one bin per line, its lower edge, optionally with
  a label: "18" or "18: Adults" (without one the label is the bin's range, "18 to 24"); a direct number's
  bins the same, or none (`Kind.options_optional`);
- yes/no and a numeric question asked for its mean: none.

"Prefer not to say" is an ordinary, randomized option, added as the last one by a checkbox (single
choice, multi-select, ordinal; an ordinal one has no score and is left out of the mean score).
`read` turns the text into option rows and the problems with them, by field (each kind reads its
own lines: surveys.collection.kinds); `written` is its inverse, for showing saved options in the
box. A multi-select's exclusive options ("None of these") are named in a box of their own, one
label per line (`mark_exclusive`, `exclusive_written`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from django.utils.translation import gettext as _

from .. import kinds, scales
from ..kinds import MAX_OPTIONS, Row
from ..models import Option, Question

__all__ = ["Read", "Row", "ends_with_prefer_not", "exclusive_written", "lines", "mark_exclusive", "prefer_not_to_say",
           "read", "written"]


def prefer_not_to_say() -> str:
    return _("Prefer not to say")


@dataclass
class Read:
    rows: list[Row] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)


def lines(text: str) -> list[str]:
    """The options typed one per line, in order, without blank lines."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def read(kind_name: str, name: str, text: str, add_prefer_not: bool, scale: scales.Scale | None) -> Read:
    """The option rows typed for a question of kind `kind_name` with mechanism `name`, and what is wrong."""
    typed = lines(text)
    found = Read()
    kind = kinds.find(kind_name)
    if kind is None:
        return found  # the kind's own field says it is none
    if add_prefer_not and not kind.prefer_not:
        found.errors["prefer_not_to_say"] = _("“Prefer not to say” is for single-choice, multi-select and "
                                              "ordinal questions.")
    if not kind.has_options(name):
        if typed:
            found.errors["options_text"] = kind.no_options()
        return found
    if not typed and kind.options_optional(name):
        return found  # a direct number without bins
    if add_prefer_not and typed and typed[-1].casefold() == prefer_not_to_say().casefold():
        typed = typed[:-1]  # already there: add it once
    found.rows = kind.read_options(typed, scale, found.errors)
    if add_prefer_not and kind.prefer_not:
        found.rows.append(Row(prefer_not_to_say()))
    if "options_text" not in found.errors:
        _check_count(kind, [row.label for row in found.rows], found.errors)
    return found


def mark_exclusive(kind_name: str, rows: list[Row], text: str) -> tuple[list[Row], str]:
    """The rows with the options named in `text` (one label per line, any case) marked exclusive, and
    what is wrong: a name that is no option, a kind without exclusive options, too few left."""
    named = {label.casefold(): label for label in lines(text)}
    kind = kinds.find(kind_name)
    if not named or kind is None:
        return rows, ""
    if not kind.many:
        return rows, kind.exclusive_problem([True])
    unknown = [label for key, label in named.items() if key not in {row.label.casefold() for row in rows}]
    if unknown:
        return rows, _("Not among this question's options: %(labels)s. Name each exclusive option as typed "
                       "above.") % {"labels": ", ".join(unknown)}
    marked = [replace(row, exclusive=row.label.casefold() in named) for row in rows]
    return marked, kind.exclusive_problem([row.exclusive for row in marked])


def exclusive_written(question: Question) -> str:
    """The saved exclusive options as their box shows them, one per line."""
    return "\n".join(option.label for option in question.ordered_options() if option.exclusive)


def _check_count(kind: kinds.Kind, labels: list[str], errors: dict[str, str]) -> None:
    seen = [label.casefold() for label in labels]
    if len(labels) < 2:
        errors["options_text"] = kind.too_few_options()
    elif len(labels) > MAX_OPTIONS:
        errors["options_text"] = _("At most %(max)d options.") % {"max": MAX_OPTIONS}
    elif len(set(seen)) != len(seen):
        twice = sorted({label for label in labels if seen.count(label.casefold()) > 1})
        errors["options_text"] = _("Each option only once: %(twice)s.") % {"twice": ", ".join(twice)}


def ends_with_prefer_not(kind_name: str, options: Sequence[Option]) -> bool:
    """Whether the saved options end with the "Prefer not to say" the checkbox adds."""
    kind = kinds.find(kind_name)
    if kind is None or not kind.prefer_not or not options:
        return False
    last = options[-1]
    return last.label.casefold() == prefer_not_to_say().casefold() and last.score is None


def written(question: Question) -> tuple[str, bool]:
    """The saved options as the box shows them, and whether the checkbox adds "Prefer not to say"."""
    options = question.ordered_options()
    prefer_not = ends_with_prefer_not(question.kind, options)
    shown = options[:-1] if prefer_not else options
    return "\n".join(kinds.kind_of(question).written_options(question.scale(), shown)), prefer_not

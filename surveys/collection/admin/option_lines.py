"""A question's options as the admin types them, one per line, for every kind of question.

- single choice, multi-select: one label per line;
- ordinal: one level per line, "Agree = 4" with its score, or no scores at all (then 1, 2, 3...);
- numeric with bins (k-ary randomized response): one bin per line, its lower edge, optionally with
  a label: "18" or "18: Adults" (without one the label is the bin's range, "18 to 24");
- yes/no and a numeric question asked for its mean: none.

"Prefer not to say" is an ordinary, randomized option, added as the last one by a checkbox (single
choice, multi-select, ordinal; an ordinal one has no score and is left out of the mean score).
`read` turns the text into option rows and the problems with them, by field; `written` is its
inverse, for showing saved options in the box. A multi-select's exclusive options ("None of these")
are named in a box of their own, one label per line (`mark_exclusive`, `exclusive_written`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal

from django.utils.translation import gettext as _

from .. import scales
from ..models import MAX_OPTIONS, Option, Question
from ..models.kinds import PREFER_NOT_TO_SAY_KINDS, exclusive_problem, has_options


def prefer_not_to_say() -> str:
    return _("Prefer not to say")


@dataclass(frozen=True)
class Row:
    label: str
    score: Decimal | None = None
    lower: Decimal | None = None
    exclusive: bool = False


@dataclass
class Read:
    rows: list[Row] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)


def lines(text: str) -> list[str]:
    """The options typed one per line, in order, without blank lines."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def read(kind: str, name: str, text: str, add_prefer_not: bool, scale: scales.Scale | None) -> Read:
    """The option rows typed for a question of `kind` with mechanism `name`, and what is wrong."""
    typed = lines(text)
    found = Read()
    if add_prefer_not and kind not in PREFER_NOT_TO_SAY_KINDS:
        found.errors["prefer_not_to_say"] = _("“Prefer not to say” is for single-choice, multi-select and "
                                              "ordinal questions.")
    if not has_options(kind, name):
        if typed:
            found.errors["options_text"] = (
                _("Leave the options empty for a yes/no question: its answers are No and Yes.")
                if kind == Question.Kind.YES_NO else
                _("Leave the options empty for a numeric question asked for its mean (for bins, choose k-ary "
                  "randomized response)."))
        return found
    if add_prefer_not and typed and typed[-1].casefold() == prefer_not_to_say().casefold():
        typed = typed[:-1]  # already there: add it once
    if kind == Question.Kind.ORDINAL:
        found.rows = _levels(typed, found.errors)
    elif kind == Question.Kind.NUMERIC:
        found.rows = _bins(typed, scale, found.errors)
    else:
        found.rows = [Row(label) for label in typed]
    if add_prefer_not and kind in PREFER_NOT_TO_SAY_KINDS:
        found.rows.append(Row(prefer_not_to_say()))
    if "options_text" not in found.errors:
        _check_count(kind, [row.label for row in found.rows], found.errors)
    return found


def mark_exclusive(kind: str, rows: list[Row], text: str) -> tuple[list[Row], str]:
    """The rows with the options named in `text` (one label per line, any case) marked exclusive, and
    what is wrong: a name that is no option, a kind without exclusive options, too few left."""
    named = {label.casefold(): label for label in lines(text)}
    if not named:
        return rows, ""
    if kind != Question.Kind.MULTI_SELECT:
        return rows, exclusive_problem(kind, [True])
    unknown = [label for key, label in named.items() if key not in {row.label.casefold() for row in rows}]
    if unknown:
        return rows, _("Not among this question's options: %(labels)s. Name each exclusive option as typed "
                       "above.") % {"labels": ", ".join(unknown)}
    marked = [replace(row, exclusive=row.label.casefold() in named) for row in rows]
    return marked, exclusive_problem(kind, [row.exclusive for row in marked])


def exclusive_written(question: Question) -> str:
    """The saved exclusive options as their box shows them, one per line."""
    return "\n".join(option.label for option in question.ordered_options() if option.exclusive)


def _levels(typed: list[str], errors: dict[str, str]) -> list[Row]:
    parsed = [scales.parse_line(line, "=") for line in typed]
    problems = scales.score_problems([score for _, score in parsed], skipped=0)
    if problems:
        errors["options_text"] = _("Give every level a score (“Agree = 4”) or none (they are then 1, 2, 3…).")
        return []
    if all(score is None for _, score in parsed):
        return [Row(label, Decimal(j)) for j, (label, _score) in enumerate(parsed, start=1)]
    return [Row(label, score) for label, score in parsed]


def _bins(typed: list[str], scale: scales.Scale | None, errors: dict[str, str]) -> list[Row]:
    parsed = [scales.parse_line(line, ":") for line in typed]
    if scale is None:  # lo, hi or step is wrong: their own errors say so
        return [Row(label or line) for line, (label, _edge) in zip(typed, parsed, strict=True)]
    edges = [edge for _, edge in parsed]
    problems = scales.bin_problems(scale, edges)
    if problems:
        errors["options_text"] = " ".join(problems)
        return []
    known = [edge for edge in edges if edge is not None]
    return [Row(label or scales.bin_label(scale, known, j), None, known[j]) for j, (label, _) in enumerate(parsed)]


def _check_count(kind: str, labels: list[str], errors: dict[str, str]) -> None:
    seen = [label.casefold() for label in labels]
    if len(labels) < 2:
        errors["options_text"] = {
            "single_choice": _("A single-choice question needs at least two options, one per line."),
            "multi_select": _("A multi-select question needs at least two options, one per line."),
            "ordinal": _("An ordinal question needs at least two levels, one per line."),
        }.get(kind, _("A numeric question with bins needs at least two bins, one lower edge per line."))
    elif len(labels) > MAX_OPTIONS:
        errors["options_text"] = _("At most %(max)d options.") % {"max": MAX_OPTIONS}
    elif len(set(seen)) != len(seen):
        twice = sorted({label for label in labels if seen.count(label.casefold()) > 1})
        errors["options_text"] = _("Each option only once: %(twice)s.") % {"twice": ", ".join(twice)}


def ends_with_prefer_not(kind: str, options: Sequence[Option]) -> bool:
    """Whether the saved options end with the "Prefer not to say" the checkbox adds."""
    if kind not in PREFER_NOT_TO_SAY_KINDS or not options:
        return False
    last = options[-1]
    return last.label.casefold() == prefer_not_to_say().casefold() and last.score is None


def written(question: Question) -> tuple[str, bool]:
    """The saved options as the box shows them, and whether the checkbox adds "Prefer not to say"."""
    options = question.ordered_options()
    prefer_not = ends_with_prefer_not(question.kind, options)
    shown = options[:-1] if prefer_not else options
    if question.kind == Question.Kind.ORDINAL:
        text = [f"{o.label} = {scales.exact(o.score)}" if o.score is not None else o.label for o in shown]
    elif question.kind == Question.Kind.NUMERIC:
        scale, edges = question.scale(), [o.lower for o in shown if o.lower is not None]
        text = [_bin_line(scale, edges, j, o) for j, o in enumerate(shown)]
    else:
        text = [o.label for o in shown]
    return "\n".join(text), prefer_not


def _bin_line(scale: scales.Scale | None, edges: list[Decimal], j: int, option: Option) -> str:
    if option.lower is None:
        return option.label
    edge = scales.exact(option.lower)
    automatic = (scale is not None and j < len(edges)
                 and option.label == scales.bin_label(scale, [scales.exact(e) for e in edges], j))
    return str(edge) if automatic else f"{edge}: {option.label}"

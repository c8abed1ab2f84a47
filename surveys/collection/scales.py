"""Numeric scales, bins and ordinal scores: what multi-select, numeric and ordinal questions add to options, checked
exactly (decimals, never floats).

A numeric question's answers are the grid lo, lo + step, ..., hi: grid index i in [0, steps],
steps = (hi - lo) / step a whole number. A histogram's bins are given by their lower edges
e_0 = lo < e_1 < ... < e_{k-1} <= hi, each on the grid: bin j holds the grid values from e_j up to
(not including) e_{j+1}, the last one up to hi. An ordinal question's levels carry scores; a level
without one (such as "Prefer not to say") is left out of the mean score.

The admin types options one per line; `parse_line` reads the number a line may carry:
"Strongly agree = 5" (an ordinal level's score) or "18" / "18: Adults" (a bin's lower edge and,
optionally, its label). Nothing here imports Django models, so the models can use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _

MAX_STEPS = 10**6  # the ldp contract's limit on the grid


def exact(value: object) -> Decimal:
    """A decimal as written, in its shortest form: 10 and 10.000000 are both "10", 0.50 is "0.5".

    SQLite hands decimals back as floats, whose repr is the text that was stored; PostgreSQL as
    Decimals with trailing zeros. Both read the same here, so the plan (and its digest) does too.

    >>> str(exact(10.0)), str(exact(Decimal("2.500000"))), str(exact("-0.25"))
    ('10', '2.5', '-0.25')
    """
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    if number == number.to_integral_value():
        return number.quantize(Decimal(1)) + 0  # + 0 turns -0 into 0
    return number.normalize()


def number(text: str) -> Decimal | None:
    """A finite decimal typed by an admin, or None."""
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        return None
    return exact(value) if value.is_finite() else None


@dataclass(frozen=True)
class Scale:
    """A numeric question's grid: lo, lo + step, ..., hi."""

    lo: Decimal
    hi: Decimal
    step: Decimal

    @property
    def steps(self) -> int:
        return int((self.hi - self.lo) / self.step)

    def index(self, value: Decimal) -> int | None:
        """The grid index of `value`, or None if it is outside [lo, hi] or between grid points."""
        if not self.lo <= value <= self.hi:
            return None
        index, rest = divmod(value - self.lo, self.step)
        return int(index) if rest == 0 else None

    def value(self, index: int) -> Decimal:
        return exact(self.lo + index * self.step)

    def as_dict(self) -> dict[str, str]:
        return {"lo": str(self.lo), "hi": str(self.hi), "step": str(self.step)}


def scale_problems(lo: Decimal | None, hi: Decimal | None, step: Decimal | None) -> dict[str, str]:
    """What is wrong with a numeric question's lo, hi and step, by field (empty if nothing)."""
    problems = {name: "A numeric question needs this." for name, value in (("lo", lo), ("hi", hi), ("step", step))
                if value is None}
    if problems or lo is None or hi is None or step is None:
        return problems
    if not lo < hi:
        return {"hi": "The largest answer (hi) must be above the smallest (lo)."}
    if not step > 0:
        return {"step": "The step must be above 0."}
    steps, rest = divmod(hi - lo, step)
    if rest != 0:
        return {"step": f"The range from {exact(lo)} to {exact(hi)} must be a whole number of steps of "
                        f"{exact(step)}."}
    if steps > MAX_STEPS:
        return {"step": f"At most {MAX_STEPS:,} steps from lo to hi; this has {int(steps):,}."}
    return {}


def scale_of(lo: object, hi: object, step: object) -> Scale | None:
    """The scale of stored (or typed) values, or None when they do not make one."""
    if lo is None or hi is None or step is None:
        return None
    found = Scale(exact(lo), exact(hi), exact(step))
    return None if scale_problems(found.lo, found.hi, found.step) else found


def parse_line(line: str, separator: str) -> tuple[str, Decimal | None]:
    """(text, number) of one typed line: "label = 5" with separator "=" (the number after it),
    "18: label" with ":" (the number before it); a line without a number has None.

    >>> parse_line("Strongly agree = 5", "="), parse_line("18: Adults", ":"), parse_line("65", ":")
    (('Strongly agree', Decimal('5')), ('Adults', Decimal('18')), ('', Decimal('65')))
    """
    if separator == "=":
        label, found, tail = line.rpartition("=")
        value = number(tail) if found else None
        return (label.strip(), value) if value is not None and label.strip() else (line.strip(), None)
    head, found, label = line.partition(":")
    value = number(head)
    if value is None:
        return line.strip(), None
    return (label.strip() if found else ""), value


def bin_problems(scale: Scale, edges: Sequence[Decimal | None]) -> list[str]:
    """What is wrong with a histogram's lower edges (empty if nothing)."""
    if len(edges) < 2:
        return [_("A numeric question with bins needs at least two bins, one lower edge per line.")]
    if any(edge is None for edge in edges):
        return [_("Each bin's line starts with its lower edge, a number (e.g. “18” or “18: Adults”).")]
    problems = []
    found = [edge for edge in edges if edge is not None]
    if found[0] != scale.lo:
        problems.append(_("The first bin must start at the smallest answer, %(lo)s.") % {"lo": scale.lo})
    off = [str(edge) for edge in found if scale.index(edge) is None]
    if off:
        problems.append(_("Each lower edge must be an answer on the grid (%(lo)s to %(hi)s in steps of %(step)s): "
                          "not %(off)s.") % {"lo": scale.lo, "hi": scale.hi, "step": scale.step, "off": ", ".join(off)})
    if any(b <= a for a, b in zip(found, found[1:], strict=False)):
        problems.append(_("The lower edges must increase from one bin to the next."))
    return problems


def edge_indexes(scale: Scale, edges: Sequence[Decimal]) -> list[int]:
    """The bins' lower edges as grid indexes (what the browser maps an answer's index with)."""
    return [int((edge - scale.lo) / scale.step) for edge in edges]


def bin_label(scale: Scale, edges: Sequence[Decimal], j: int) -> str:
    """The words of bin j when the admin gave none: "18 to 24" (its grid values, both ends included)."""
    top = edges[j + 1] - scale.step if j + 1 < len(edges) else scale.hi
    low = edges[j]
    return str(low) if top == low else f"{low} to {exact(top)}"


def score_problems(scores: Sequence[Decimal | None], skipped: int) -> list[str]:
    """What is wrong with an ordinal question's scores: `scores` per level as typed (None: none
    given), `skipped` levels left out of the mean on purpose (the "Prefer not to say" level)."""
    given = [score for score in scores if score is not None]
    if given and len(given) != len(scores) - skipped:
        return ["Give every level a score (“Agree = 4”) or none (they are then 1, 2, 3…)."]
    return []

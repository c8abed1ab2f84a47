"""A question's name: what its column is called in every export (reports.csv, .dta, .sav, the codebook, the
generated scripts) and its key everywhere else (the APIs, estimates.csv, model terms), instead of q<order>.

A name has to be a variable name in every program that reads the exports: a letter, then letters, digits or
underscores, at most 32 characters (Stata's limit), none of the words Stata, SPSS, R or Python reserve, and none of
the export's own columns. It may not look like another question's default key (q<order>) or end in _<digits> (a
multi-select's per-option columns are name_0, name_1, ...), and no two questions of a survey share one, however
cased (SPSS reads names case-insensitively)."""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable

from django.utils.translation import gettext as _

MAX_LENGTH = 32
SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
TAKEN = re.compile(r"(q[0-9]+|.*_[0-9]+)\Z", re.IGNORECASE)
EXPORT_COLUMNS = {"response_id", "submitted_on", "mechanism_version", "weight"}
STATA = {"_all", "_b", "byte", "_coef", "_cons", "double", "float", "if", "in", "int", "long", "_n", "_pi", "_pred",
         "_rc", "_skip", "strl", "using", "with"}
SPSS = {"all", "and", "by", "eq", "ge", "gt", "le", "lt", "ne", "not", "or", "to", "with"}
R = {"if", "else", "repeat", "while", "function", "for", "next", "break", "true", "false", "null", "inf", "nan", "na",
     "na_integer_", "na_real_", "na_complex_", "na_character_", "in"}
RESERVED = EXPORT_COLUMNS | STATA | SPSS | R | {word.casefold() for word in [*keyword.kwlist, *keyword.softkwlist]}


def key(name: str, order: int) -> str:
    """A question's key from its stored name and its order: its name, else q<order> (`PlannedQuestion.key`)."""
    return name or f"q{order}"


def problem(name: str, others: Iterable[str] = ()) -> str | None:
    """What is wrong with `name` for a question whose survey's other questions are named `others`, or None."""
    if not name:
        return None  # unnamed: its key is q<order>
    if len(name) > MAX_LENGTH or not SHAPE.match(name):
        return _("A name is a letter, then letters, digits or underscores, at most %(max)d characters (it names the "
                 "question's column in every export).") % {"max": MAX_LENGTH}
    if name.casefold() in RESERVED or re.fullmatch(r"str[0-9]+", name, re.IGNORECASE):
        return _("“%(name)s” is a word Stata, SPSS, R or Python reserve, or a column the exports already have: "
                 "choose another name.") % {"name": name}
    if TAKEN.match(name):
        return _("A name may not be q followed by digits (another question's column) or end in _ and digits (a "
                 "multi-select's per-option columns).")
    if name.casefold() in {other.casefold() for other in others}:
        return _("Another question of this survey is named “%(name)s” (names differ by more than their "
                 "case).") % {"name": name}
    return None

"""The `privacy` column: how one question is randomized, in one cell a person can type.

    qrr q=2/3 | bitflip epsilon=1 | krr epsilon=1.6 | sue epsilon=1 | oue epsilon=1
    multiselect epsilon=2 at_most=3 | onebit epsilon=1 lo=0 hi=100 step=1 | dlaplace epsilon=1 lo=0 hi=10 step=1
    direct | direct lo=18 hi=100 step=1 bins=18,25,65 | krr epsilon=1 lo=0 hi=100 step=1 bins=0,20,50

A word (the mechanism), then key=value pairs (bins: a numeric question's lower edges, comma-separated). q stays
the text typed ("2/3" or "0.5"): the builder reads it exactly. Every problem is a ValueError in plain words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from django.utils.translation import gettext as _

WORDS = ("qrr", "bitflip", "krr", "sue", "oue", "multiselect", "onebit", "dlaplace", "direct")
# What each word takes, beside lo, hi and step (numbers only).
GRID = {"lo", "hi", "step"}
TAKES = {"qrr": {"q"}, "bitflip": {"epsilon"}, "krr": {"epsilon", "bins", *GRID}, "sue": {"epsilon"},
         "oue": {"epsilon"}, "multiselect": {"epsilon", "at_most"}, "onebit": {"epsilon", *GRID},
         "dlaplace": {"epsilon", *GRID}, "direct": {"bins", *GRID}}
NEEDS = {"qrr": {"q"}, "direct": set(), "multiselect": {"epsilon"}}  # the rest need epsilon


@dataclass(frozen=True)
class Privacy:
    word: str
    q: str | None = None
    epsilon: float | None = None
    at_most: int | None = None
    lo: str | None = None
    hi: str | None = None
    step: str | None = None
    bins: tuple[str, ...] = ()

    @property
    def numeric(self) -> bool:
        """Whether the cell says something only a number takes (lo, hi, step or bins)."""
        return any(value is not None for value in (self.lo, self.hi, self.step)) or bool(self.bins)

    def __str__(self) -> str:
        return written(self)


def parse(cell: str) -> Privacy:
    """A privacy cell read; ValueError naming what is wrong."""
    words = cell.split()
    if not words:
        raise ValueError(_("the privacy cell is empty: say how the question is randomized (or “direct”)"))
    word = words[0].lower()
    if word not in WORDS:
        raise ValueError(_("unknown privacy word “%(word)s”: use one of %(words)s")
                         % {"word": words[0], "words": ", ".join(WORDS)})
    values: dict[str, str] = {}
    for pair in words[1:]:
        key, sign, value = pair.partition("=")
        key = key.lower()
        if not sign or not value:
            raise ValueError(_("“%(pair)s” is not key=value") % {"pair": pair})
        if key not in TAKES[word]:
            raise ValueError(_("%(word)s takes no %(key)s (it takes %(takes)s)")
                             % {"word": word, "key": key, "takes": ", ".join(sorted(TAKES[word]))})
        if key in values:
            raise ValueError(_("%(key)s is given twice") % {"key": key})
        values[key] = value
    missing = (NEEDS.get(word, {"epsilon"})) - set(values)
    if missing:
        raise ValueError(_("%(word)s needs %(what)s") % {"word": word, "what": " and ".join(sorted(missing))})
    return Privacy(word, q=_q(values["q"]) if "q" in values else None,
                   epsilon=_epsilon(values["epsilon"]) if "epsilon" in values else None,
                   at_most=_at_most(values["at_most"]) if "at_most" in values else None,
                   lo=_number("lo", values.get("lo")), hi=_number("hi", values.get("hi")),
                   step=_number("step", values.get("step")),
                   bins=tuple(_number("bins", edge) or "" for edge in values["bins"].split(",")) if "bins" in values
                   else ())


def written(privacy: Privacy) -> str:
    """The cell that `parse` reads back as `privacy`."""
    parts = [privacy.word]
    if privacy.q is not None:
        parts.append(f"q={privacy.q}")
    if privacy.epsilon is not None:
        parts.append(f"epsilon={_short(privacy.epsilon)}")
    if privacy.at_most is not None:
        parts.append(f"at_most={privacy.at_most}")
    parts += [f"{key}={value}" for key, value in (("lo", privacy.lo), ("hi", privacy.hi), ("step", privacy.step))
              if value is not None]
    if privacy.bins:
        parts.append("bins=" + ",".join(privacy.bins))
    return " ".join(parts)


def _q(text: str) -> str:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise ValueError(_("q=%(text)s is not a number (write 0.5 or 2/3)") % {"text": text}) from None
    if not 0 < value < 1:
        raise ValueError(_("q=%(text)s must be between 0 and 1") % {"text": text})
    return text


def _epsilon(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(_("%(key)s=%(text)s is not a number") % {"key": "epsilon", "text": text}) from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(_("epsilon=%(text)s must be a positive number") % {"text": text})
    return value


def _at_most(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise ValueError(_("at_most=%(text)s must be a whole number, 1 or more") % {"text": text})
    return int(text)


def _number(key: str, text: str | None) -> str | None:
    if text is None:
        return None
    text = text.strip()
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError(_("%(key)s=%(text)s is not a number") % {"key": key, "text": text}) from None
    if not value.is_finite():
        raise ValueError(_("%(key)s=%(text)s is not a number") % {"key": key, "text": text})
    return text


def _short(value: float) -> str:
    """A float's shortest exact text, without a trailing .0 (epsilon=1, epsilon=1.6)."""
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text

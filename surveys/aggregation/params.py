"""How results are asked for: confidence level, interval, Bonferroni, planner margin, and which
questions to relate (a and b for a cross-tab, by for a break-down).

One parser for the dashboard's GET form, the estimates and cross-tab APIs and the exports,
so a query string means the same thing everywhere; each caller names the parameters it takes.
Anything it does not understand is refused with the parameter's name and the reason, never
silently replaced by a default. Whether a question id belongs to the survey is the cross-tab
service's check (surveys.aggregation.relating.crosstab), with the same 400.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from django.utils.translation import gettext_lazy as _

from ldp.stats.intervals import INTERVALS
from surveys import refusals

CONFIDENCE_MIN, CONFIDENCE_MAX = 0.5, 0.999
MARGIN_MIN, MARGIN_MAX = 0.001, 0.5
CONFIDENCE_CHOICES = (0.90, 0.95, 0.99)
ANYTIME = "anytime"  # a confidence sequence: valid however often the results are looked at
FIXED_DEFAULT = "wilson"  # the interval of a closed survey (or a draft), when none is asked for
INTERVAL_CHOICES = {
    ANYTIME: _("Valid however often you look (confidence sequence)"),
    "wilson": _("Wilson score (continuity-corrected)"),
    "exact": _("Clopper–Pearson (exact)"),
}
TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class ResultOptions:
    confidence: float = 0.95
    interval: str | None = None  # None: anytime while the survey is open, else wilson (see `resolved`)
    simultaneous: bool = False
    margin: float = 0.05
    a: int | None = None  # question ids: a cross-tab of a and b, a break-down by `by`
    b: int | None = None
    by: int | None = None
    weighted: bool = False  # to the survey's population margins (surveys.aggregation.weighting.weights)
    first: int | None = None  # wave numbers: the change from `first` to `second` (surveys.aggregation.waves.series)
    second: int | None = None
    pilot: bool = False  # the dashboard also shows figures below the planner's size, each marked (`too_few`)

    def query(self) -> str:
        """The estimate options as a query string (for links that keep them)."""
        chosen = {"interval": self.interval} if self.interval is not None else {}  # else the survey's default
        weighted = {"weighted": "on"} if self.weighted else {}
        return urlencode({"confidence": f"{self.confidence:g}", **chosen,
                          "simultaneous": "on" if self.simultaneous else "off", "margin": f"{self.margin:g}",
                          **weighted})

    @property
    def fixed(self) -> str:
        """The fixed-n interval these options stand for (the default one for anytime, whose estimates and
        standard errors are the fixed-n ones)."""
        return FIXED_DEFAULT if self.interval in (None, ANYTIME) else str(self.interval)

    def resolved(self, is_open: bool) -> ResultOptions:
        """These options with the interval named: one asked for wins; else intervals valid however often you
        look while the survey is open (it is being watched), and the fixed-n default once it is closed."""
        if self.weighted and self.interval in (ANYTIME, "exact"):
            raise BadParameter("interval", "weighted figures have Wilson intervals at each option's effective "
                                           "sample size; leave interval out or ask for wilson")
        if self.interval is not None:
            return self
        return replace(self, interval=ANYTIME if is_open and not self.weighted else FIXED_DEFAULT)

    def crosstab_query(self) -> str:
        """The cross-tab's parameters as a query string (its export and API take these only)."""
        weighted = {"weighted": "on"} if self.weighted else {}
        return urlencode({"a": self.a, "b": self.b, "confidence": f"{self.confidence:g}",
                          "margin": f"{self.margin:g}", **weighted})


DEFAULTS = ResultOptions()
FIELDS = ("confidence", "interval", "simultaneous", "margin", "weighted")  # the estimates API and export
CROSSTAB_FIELDS = ("a", "b", "confidence", "margin", "weighted")  # the cross-tab API and export
DASHBOARD_FIELDS = (*FIELDS, "a", "b", "by", "first", "second", "pilot")
WAVE_FIELDS = ("confidence", "first", "second", "weighted")  # the waves API and waves.csv


class BadParameter(refusals.Refusal):
    """A query parameter the results cannot be computed with: which one, and why."""

    code = refusals.BAD_PARAMETER


def parse(query: Any, fields: tuple[str, ...] = FIELDS) -> ResultOptions:
    """Read a QueryDict (or plain dict); unknown or repeated parameters are refused too."""
    unknown = sorted(set(query) - set(fields))
    if unknown:
        raise BadParameter(unknown[0], "unknown parameter; expected one of " + ", ".join(fields))
    values: dict[str, Any] = {}
    for name in fields:
        given = query.getlist(name) if hasattr(query, "getlist") else [query[name]] if name in query else []
        if len(given) > 1:
            raise BadParameter(name, "give this parameter at most once")
        if given:
            values[name] = READERS[name](given[0].strip())
    return ResultOptions(**values)


def pilot_asked(query: Any) -> bool:
    """Whether the dashboard's query asks for pilot figures (a word not understood: no; the dashboard's own
    parse says so)."""
    return str(query.get("pilot", "")).strip().lower() in TRUE_WORDS


def _number(name: str, text: str, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BadParameter(name, f"must be a number between {low:g} and {high:g}") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise BadParameter(name, f"must be a number between {low:g} and {high:g}")
    return value


def _question(name: str, text: str) -> int | None:
    if not text:
        return None  # a form's empty choice: as if not given
    if not (text.isascii() and text.isdigit() and 0 < int(text) < 2**63):
        raise BadParameter(name, "must be a question's id (a positive whole number)")
    return int(text)


def _wave(name: str, text: str) -> int | None:
    if not text:
        return None  # a form's empty choice: as if not given
    if not (text.isascii() and text.isdigit() and 0 < int(text) < 2**31):
        raise BadParameter(name, "must be a wave's number (a positive whole number)")
    return int(text)


def _interval(text: str) -> str:
    if text not in INTERVALS and text != ANYTIME:
        raise BadParameter("interval", "must be one of " + ", ".join(sorted({*INTERVALS, ANYTIME})))
    return text


def _flag(name: str, text: str) -> bool:
    word = text.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise BadParameter(name, "must be true or false (also 1/0, yes/no, on/off)")


READERS = {
    "confidence": lambda text: _number("confidence", text, CONFIDENCE_MIN, CONFIDENCE_MAX),
    "interval": _interval,
    "simultaneous": lambda text: _flag("simultaneous", text),
    "weighted": lambda text: _flag("weighted", text),
    "pilot": lambda text: _flag("pilot", text),
    "margin": lambda text: _number("margin", text, MARGIN_MIN, MARGIN_MAX),
    "a": lambda text: _question("a", text),
    "b": lambda text: _question("b", text),
    "by": lambda text: _question("by", text),
    "first": lambda text: _wave("first", text),
    "second": lambda text: _wave("second", text),
}

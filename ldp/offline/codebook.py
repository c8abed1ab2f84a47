"""One question as an export's codebook describes it (`CodebookQuestion`), read and checked from a parsed
codebook.json; `ldp.offline.analyze` counts the reports and `ldp.offline.means` estimates the means with it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..mechanisms.registry import MECHANISMS

CODEBOOK_FORMAT = "ldp-survey-codebook/2"
ENCODINGS = ("index", "bits", "integer")


class ExportError(ValueError):
    """An export or codebook this module cannot read; the message says where and why."""


@dataclass(frozen=True)
class CodebookQuestion:
    """One question as the codebook describes it: what its reports mean and the channel that made them."""

    key: str
    text: str
    options: tuple[str, ...]
    mechanism: str
    randomized: bool
    encoding: str  # "index" (one column: the option), "bits" (one column per option) or "integer" (a number)
    columns: tuple[str, ...]
    p_exact: str | None  # None for discrete Laplace (an integer report)
    q_other_exact: str | None
    described: dict[str, Any] = field(default_factory=dict, compare=False)  # the codebook's mechanism
    scores: tuple[str | None, ...] | None = None  # an ordinal question's scores (None: not in the mean score)
    # Skip logic: the condition on direct answers under which it was asked (its n counts those asked); "" for all.
    relevant: str = ""

    @property
    def k(self) -> int:
        """The counters: one per option (a 1-bit mean: reports of 0 and of 1); none for discrete Laplace."""
        if self.encoding == "integer":
            return 0
        return len(self.options) if self.options else 2

    @property
    def report_range(self) -> tuple[int, int]:
        """The smallest and largest report one column may hold."""
        if self.encoding == "integer":
            bound, steps = self.described.get("bound", 0), self.described["steps"]  # a direct number: no bound
            return -bound, steps + bound
        return 0, (1 if self.encoding == "bits" else self.k - 1)

    @property
    def p(self) -> float:
        """P(report = truth) (unary: P(bit j = 1 | truth j)), from the sampler's integers."""
        return float(Fraction(self.p_exact)) if self.p_exact is not None else math.nan

    @property
    def q_other(self) -> float:
        """P(report = one given other option) (unary: P(bit j = 1 | truth not j))."""
        return float(Fraction(self.q_other_exact)) if self.q_other_exact is not None else math.nan

    @property
    def estimates_mean(self) -> bool:
        """Its mechanism's reports estimate a numeric question's mean (a name ldp does not know: no)."""
        cls = MECHANISMS.get(self.mechanism)
        return cls is not None and cls.estimates_mean

    @property
    def mean_interval(self) -> str:
        """How its mean's interval is made: its mechanism's (`Mechanism.mean_interval`), or Student's t
        for an ordinal question's mean score."""
        cls = MECHANISMS.get(self.mechanism)
        return (cls.mean_interval if cls is not None else None) or "t"


def designs(codebook: Any) -> list[CodebookQuestion]:
    """The questions of a codebook (a parsed codebook.json), checked."""
    if not isinstance(codebook, dict) or codebook.get("format") != CODEBOOK_FORMAT:
        raise ExportError(f"not a codebook: its format must be {CODEBOOK_FORMAT!r}")
    found = []
    for entry in codebook.get("questions", []):
        try:
            mechanism, report = entry["mechanism"], entry["report"]
            design = CodebookQuestion(key=entry["key"], text=entry["text"], options=tuple(entry["options"]),
                            mechanism=mechanism["name"], randomized=bool(entry.get("randomized", True)),
                            encoding=report["encoding"], columns=tuple(report["csv_columns"]),
                            p_exact=mechanism["p_exact"], q_other_exact=mechanism["q_other_exact"],
                            described=mechanism, scores=_scores(entry.get("scores")),
                            relevant=str(entry.get("relevant", "")))
            if design.encoding not in ENCODINGS:
                raise ExportError(f"{design.key}: report encoding {design.encoding!r} is not one of {ENCODINGS}")
            if design.encoding == "integer":
                design.report_range  # noqa: B018  # the bound and steps must be there
            elif not design.p > design.q_other:
                raise ExportError(f"{design.key}: p must exceed q_other")
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as error:
            if isinstance(error, ExportError):
                raise
            raise ExportError(f"codebook question {entry.get('key', '?') if isinstance(entry, dict) else '?'}: "
                              f"cannot read {error}") from None
        found.append(design)
    if not found:
        raise ExportError("the codebook lists no questions")
    return found


def _scores(scores: Any) -> tuple[str | None, ...] | None:
    if scores is None:
        return None
    if not isinstance(scores, list):
        raise TypeError("scores must be a list")
    for score in scores:
        if score is not None:
            float(score)
    return tuple(scores)

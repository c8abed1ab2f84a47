"""How a model is asked for, in one parser for the dashboard's Models form, the models API and its CSV.

    outcome=<question id>      the randomized question modelled (required, unless a formula names it)
    formula=<q1 ~ q2 + ...>    instead of outcome, covariates, reference and square: R's formula syntax over the
                               questions' keys (ldp.regression.formula; surveys.aggregation.regression.formulas)
    level=<option index>       k options: the option modelled, 0-based (yes/no: yes, 1)
    covariates=<id>,<id>,...   direct questions (comma-separated, or the parameter repeated)
    reference=<id>:<index>     a single-choice covariate's reference option (default its first), repeatable
    square=<id>,...            numeric covariates that also enter squared
    se=observed|opg            standard errors of an unweighted logistic fit (default observed)
    weighted=true              raked to the survey's population margins (sandwich standard errors)
    confidence, margin         the intervals' level, and the planner's margin of the early-results rule
    odds_ratio=<number>        the odds ratio the power calculation is for (default 2)

Anything not understood is refused naming the parameter (params.BadParameter, a 400); whether the ids are
the survey's questions, and of the right kind, is the modelling service's check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from ldp.regression.logistic import SE_KINDS

from .. import params
from ..params import BadParameter

SINGLE = ("outcome", "formula", "level", "se", "weighted", "confidence", "margin", "odds_ratio")
LISTS = ("covariates", "reference", "square")
OWN = ("outcome", "formula", "level", "covariates", "reference", "square", "se", "odds_ratio")  # not the dashboard's
FORMULA_LENGTH = 500
FIELDS = (*SINGLE, *LISTS)
DEFAULT_ODDS_RATIO = 2.0
ODDS_RATIO_MIN, ODDS_RATIO_MAX = 1.01, 100.0


@dataclass(frozen=True)
class ModelQuery:
    outcome: int
    level: int | None = None
    covariates: tuple[int, ...] = ()
    references: dict[int, int] = field(default_factory=dict)
    squares: tuple[int, ...] = ()
    se: str = "observed"
    weighted: bool = False
    confidence: float = 0.95
    margin: float = 0.05
    odds_ratio: float = DEFAULT_ODDS_RATIO
    formula: str = ""  # when given, the model's outcome and terms (outcome is then 0 until the formula is read)

    def query(self) -> str:
        """As a query string (the CSV link keeps the model asked for)."""
        pairs: list[tuple[str, Any]] = [("formula", self.formula)] if self.formula else [("outcome", self.outcome)]
        if self.level is not None:
            pairs.append(("level", self.level))
        if self.covariates:
            pairs.append(("covariates", ",".join(map(str, self.covariates))))
        pairs += [("reference", f"{q}:{j}") for q, j in sorted(self.references.items())]
        if self.squares:
            pairs.append(("square", ",".join(map(str, self.squares))))
        pairs += [("se", self.se), ("weighted", "on" if self.weighted else "off"),
                  ("confidence", f"{self.confidence:g}"), ("margin", f"{self.margin:g}"),
                  ("odds_ratio", f"{self.odds_ratio:g}")]
        return urlencode(pairs)


def asked(query: Any) -> bool:
    """Whether a request asks for a model at all (the dashboard fits one only then)."""
    return bool(query.get("outcome", "") or query.get("formula", "").strip())


def others(query: Any) -> Any:
    """The query without the model's own parameters (what the dashboard's own parser reads)."""
    rest = query.copy()
    for name in OWN:
        rest.pop(name, None)
    return rest


def parse(query: Any, strict: bool = True) -> ModelQuery:
    """Read a QueryDict; `strict`: other parameters are refused (the API and the CSV; the dashboard's own
    parser has read them). Not strict (the dashboard's form), a reference option or a square of a question that
    is not among the covariates is dropped: the form sends a reference for every single choice, ticked or not.
    Strict, it is refused naming it (a URL written by hand that names a covariate it left out)."""
    if strict:
        unknown = sorted(set(query) - set(FIELDS))
        if unknown:
            raise BadParameter(unknown[0], "unknown parameter; expected one of " + ", ".join(FIELDS))
    one = _singles(query)
    if "formula" in one:
        return _formula(query, one, strict)
    if "outcome" not in one:
        raise BadParameter("outcome", "choose the question to model (a question id)")
    values: dict[str, Any] = {"outcome": _id("outcome", one.pop("outcome"))}
    values.update(_common(one))
    covariates = _ids("covariates", query.getlist("covariates"))
    squares, references = _ids("square", query.getlist("square")), _references(query.getlist("reference"))
    if not strict:  # the form sends every choice's reference option (and a number's box), ticked or not
        squares = tuple(q for q in squares if q in covariates)
        references = {q: j for q, j in references.items() if q in covariates}
    return ModelQuery(**values, covariates=covariates, squares=squares, references=references)


def _common(one: dict[str, str]) -> dict[str, Any]:
    """The parameters of any model: level, se, odds_ratio and the dashboard's (confidence, margin, weighted)."""
    values: dict[str, Any] = {}
    if "level" in one:
        values["level"] = _index("level", one.pop("level"))
    if "se" in one and one["se"] not in SE_KINDS:
        raise BadParameter("se", "must be one of " + ", ".join(SE_KINDS))
    if "odds_ratio" in one:
        values["odds_ratio"] = _number("odds_ratio", one.pop("odds_ratio"), ODDS_RATIO_MIN, ODDS_RATIO_MAX)
    values.update({name: text if name == "se" else params.READERS[name](text) for name, text in one.items()})
    return values


def _formula(query: Any, one: dict[str, str], strict: bool) -> ModelQuery:
    """A model written as a formula: its outcome and terms are the formula's. Strict (the API, the CSV), the
    parameters it replaces are refused naming formula; the dashboard's form sends them beside it and they are
    ignored."""
    text = one.pop("formula")
    listed = [name for name in ("covariates", "reference", "square") if any(v.strip() for v in query.getlist(name))]
    if strict and ("outcome" in one or listed):
        raise BadParameter("formula", "a formula names the outcome and the terms: give it without "
                           + ", ".join(["outcome", *listed] if "outcome" in one else listed))
    if len(text) > FORMULA_LENGTH:
        raise BadParameter("formula", f"at most {FORMULA_LENGTH} characters")
    one.pop("outcome", None)
    return ModelQuery(outcome=0, formula=text, **_common(one))


def _singles(query: Any) -> dict[str, str]:
    """The parameters given at most once, those given and not empty."""
    one: dict[str, str] = {}
    for name in SINGLE:
        given = query.getlist(name)
        if len(given) > 1:
            raise BadParameter(name, "give this parameter at most once")
        if given and given[0].strip():
            one[name] = given[0].strip()
    return one


def _ids(name: str, given: list[str]) -> tuple[int, ...]:
    ids = [_id(name, part.strip()) for text in given for part in text.split(",") if part.strip()]
    if len(set(ids)) != len(ids):
        raise BadParameter(name, "give each question once")
    return tuple(ids)


def _references(given: list[str]) -> dict[int, int]:
    found: dict[int, int] = {}
    for text in given:
        question, colon, option = text.strip().partition(":")
        if not colon:
            raise BadParameter("reference", "give question id:option index, such as 12:0")
        q = _id("reference", question.strip())
        if q in found:
            raise BadParameter("reference", "give one reference option per question")
        found[q] = _index("reference", option.strip())
    return found


def _id(name: str, text: str) -> int:
    if not (text.isascii() and text.isdigit() and 0 < int(text) < 2**63):
        raise BadParameter(name, "must be a question's id (a positive whole number)")
    return int(text)


def _index(name: str, text: str) -> int:
    if not (text.isascii() and text.isdigit() and int(text) < 2**31):
        raise BadParameter(name, "must be an option's index (a whole number from 0)")
    return int(text)


def _number(name: str, text: str, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and low <= value <= high):
        raise BadParameter(name, f"must be a number between {low:g} and {high:g}")
    return value

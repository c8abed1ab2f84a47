"""Which mechanisms fit which kind of question, and a question's mechanism from its fields.

| kind          | mechanisms                  | answer                      | options                    |
|---------------|-----------------------------|-----------------------------|----------------------------|
| yes_no        | qrr, bitflip                | no / yes                    | none (No, Yes)             |
| single_choice | krr, sue, oue, direct       | one option                  | 2 to 32                    |
| multi_select  | multiselect                 | any subset (at most m)      | 2 to 32                    |
| numeric       | onebit, dlaplace (its mean) | a number on lo..hi by step  | none                       |
| numeric       | krr (a histogram)           | the same, counted in bins   | 2 to 32 bins (lower edges) |
| ordinal       | krr, sue, oue               | one level                   | 2 to 32 levels with scores |

A numeric question's mode (mean or histogram) is its mechanism: krr counts bins, onebit and
dlaplace estimate the mean. The table is the one source of the database constraint
`question_mechanism_fits_kind` and of what the admin offers.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from django.utils.translation import gettext as _

import ldp

from .. import scales
from ..scales import Scale

MAX_OPTIONS = 32  # unary and multi-select reports are stored as a bitmask in a 64-bit integer
YES_NO, SINGLE_CHOICE, MULTI_SELECT, NUMERIC, ORDINAL = "yes_no", "single_choice", "multi_select", "numeric", "ordinal"
KIND_MECHANISMS: dict[str, tuple[str, ...]] = {
    YES_NO: ("qrr", "bitflip"),
    SINGLE_CHOICE: ("krr", "sue", "oue", "direct"),
    MULTI_SELECT: ("multiselect",),
    NUMERIC: ("onebit", "dlaplace", "krr", "direct_number"),
    ORDINAL: ("krr", "sue", "oue"),
}
MEAN_MECHANISMS = frozenset({"onebit", "dlaplace"})  # a numeric question asked for its mean
# Kinds whose options an admin may end with the ordinary, randomized "Prefer not to say".
PREFER_NOT_TO_SAY_KINDS = frozenset({SINGLE_CHOICE, MULTI_SELECT, ORDINAL})
KIND_WORDS = {
    YES_NO: "yes/no questions use q-randomized response or the epsilon bit flip",
    SINGLE_CHOICE: "single-choice questions use k-ary randomized response, a unary encoding, or no "
                   "randomization (direct)",
    MULTI_SELECT: "multi-select questions use the multi-select bits",
    NUMERIC: "numeric questions use the 1-bit mean or discrete Laplace (for the mean), or k-ary randomized "
             "response over bins (a histogram)",
    ORDINAL: "ordinal questions use k-ary randomized response or a unary encoding over their levels",
}


def has_options(kind: str, name: str) -> bool:
    """Whether a question of this kind, with this mechanism, has options (levels, bins)."""
    return kind in (SINGLE_CHOICE, MULTI_SELECT, ORDINAL) or (kind == NUMERIC and name in ("krr", "direct_number"))


def kinds_config() -> dict[str, dict[str, object]]:
    """What the admin's script needs per kind: its mechanisms (the first is the fallback when the kind
    changes), and which boxes it shows: options (always, or only with krr for bins), lo/hi/step, at most,
    exclusive options, "Prefer not to say"."""
    return {kind: {"mechanisms": list(names), "options": "krr" if kind == NUMERIC else has_options(kind, ""),
                   "scale": kind == NUMERIC, "at_most": kind == MULTI_SELECT, "exclusive": kind == MULTI_SELECT,
                   "prefer_not": kind in PREFER_NOT_TO_SAY_KINDS}
            for kind, names in KIND_MECHANISMS.items()}


def fits(kind: str, name: str) -> bool:
    return name in KIND_MECHANISMS.get(kind, ())


def build_mechanism(name: str, kind: str, q: Decimal | None, epsilon: float | None, options: int, *,
                    scale: Scale | None = None, at_most: int | None = None) -> ldp.Mechanism:
    """A question's mechanism from its fields and number of options (ValueError if it cannot be).

    A question without its options yet is judged as if it had two; a numeric question asked for its
    mean needs its scale."""
    if name == "direct_number":
        if kind != NUMERIC or scale is None:
            raise ValueError("only numeric questions can be asked directly as a number, on lo..hi by step")
        if q is not None or epsilon is not None:
            raise ValueError("a direct question takes neither q nor epsilon: it is not randomized")
        return ldp.make(name, lo=scale.lo, hi=scale.hi, step=scale.step)
    if name == "direct":
        if kind != SINGLE_CHOICE:
            raise ValueError("only single-choice questions can be asked directly (not randomized)")
        if q is not None or epsilon is not None:
            raise ValueError("a direct question takes neither q nor epsilon: it is not randomized")
        return ldp.make("direct", k=max(options, 2))
    if kind in KIND_MECHANISMS and not fits(kind, name):
        raise ValueError(KIND_WORDS[kind])
    if name == "qrr":
        if q is None:
            raise ValueError("q-randomized response needs q")
        return ldp.QRandomizedResponse(Fraction(str(Decimal(q).normalize())))
    if epsilon is None:
        raise ValueError(f"{name} needs epsilon")
    if name == "multiselect":
        return ldp.MultiSelect(epsilon, max(options, 2), at_most)
    if name in MEAN_MECHANISMS:
        if scale is None:
            raise ValueError("a numeric question needs lo, hi and step")
        numeric = ldp.OneBitMean if name == "onebit" else ldp.DiscreteLaplace
        return numeric(epsilon, scale.lo, scale.hi, scale.step)
    k = 2 if kind == YES_NO else max(options, 2)
    return ldp.make(name, k=k, epsilon=epsilon)


MISMATCH = ("Yes/no questions use q-randomized response or the epsilon bit flip; single-choice questions use "
            "k-ary randomized response, a unary encoding, or no randomization (direct).")


def mechanism_errors(kind: str, name: str, q: Decimal | None, epsilon: float | None) -> dict[str, str]:
    """What does not fit: the mechanism for the kind of question, and its parameter, in words, by field."""
    errors = {}
    if name in ("direct", "direct_number"):
        if kind != (SINGLE_CHOICE if name == "direct" else NUMERIC):
            errors["mechanism_name"] = _("Only numeric questions can be asked directly as a number.") if (
                name == "direct_number") else (
                "Only single-choice questions can be asked directly (not randomized), for covariates "
                "such as an age band or a region; a yes/no question is always randomized." if kind == YES_NO else
                "Only single-choice questions can be asked directly (not randomized), for covariates "
                "such as an age band or a region.")
        if q is not None or epsilon is not None:
            errors["epsilon" if epsilon is not None else "q"] = (
                "Leave q and epsilon empty for a direct question: it is not randomized, its answer is "
                "sent as given.")
        return errors
    if kind in (YES_NO, SINGLE_CHOICE):
        if (kind == YES_NO) != (name in ldp.YES_NO):
            errors["mechanism_name"] = MISMATCH
    elif not fits(kind, name):
        errors["mechanism_name"] = KIND_WORDS[kind][0].upper() + KIND_WORDS[kind][1:] + "."
    if name == "qrr":
        if q is None:
            errors["q"] = _("q-randomized response needs q.")
        if epsilon is not None:
            errors["epsilon"] = _("Leave epsilon empty for q-randomized response; q sets it.")
    else:
        if epsilon is None:
            errors["epsilon"] = _("This mechanism needs epsilon.")
        if q is not None:
            errors["q"] = _("q is only for q-randomized response.")
    return errors


def shape_errors(kind: str, lo: Decimal | None, hi: Decimal | None, step: Decimal | None,
                 at_most: int | None) -> dict[str, str]:
    """A numeric question's lo, hi and step, and the at-most limit (multi-select only), by field."""
    errors = {}
    if kind == NUMERIC:
        errors.update(scales.scale_problems(lo, hi, step))
    else:
        given = {"lo": lo, "hi": hi, "step": step}
        errors.update({name: "Only numeric questions have lo, hi and step." for name, value in given.items()
                       if value is not None})
    if at_most is not None and kind != MULTI_SELECT:
        errors["at_most"] = _("Only multi-select questions have an at-most limit.")
    return errors


def exclusive_problem(kind: str, exclusive: list[bool]) -> str:
    """What is wrong with a question's exclusive options (one flag per option, in order), or "".

    An exclusive option ("None of these") is ticked alone: ticking it unticks the others. Several
    may be exclusive ("None of these" and "Prefer not to say" each exclude everything else), but at
    least two must not be, or the question is a single choice. The rule is on the true answer, read
    in the browser; the mechanism and its epsilon do not depend on it."""
    if not any(exclusive):
        return ""
    if kind != MULTI_SELECT:
        return _("Only multi-select questions have exclusive options (such as “None of these”).")
    if len(exclusive) - sum(exclusive) < 2:
        return _("At least two options must not be exclusive; otherwise ask a single-choice question.")
    return ""

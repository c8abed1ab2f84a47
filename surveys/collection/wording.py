"""The respondent page's numbers in plain words: "about 3 in 4", "at most 3 to 1".

The probabilities come from the mechanism's own description (`p`, `q_other`, from the sampler's
integers); this module only rounds them for reading. The sentences around them are in the
template, marked for translation, except the definition API's one-sentence explanation, built here
with gettext from ldp's numbers: ldp stays a library without Django and keeps its English sentence
for its own users; the app says the same figures in the respondent's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, assert_never

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from ldp.mechanisms import exact_q
from ldp.mechanisms.base import Shape
from ldp.mechanisms.registry import by_sampler
from ldp.planning.rounding import loss_of

# Denominators a reader knows, smallest first: the first that says p closely enough wins.
DENOMINATORS = (2, 3, 4, 5, 10, 20, 100, 1000, 10000)


def about(probability: float) -> tuple[int, int]:
    """(n, m) with n/m close to `probability` and m as plain as it can be: "about n in m".

    Close enough means within a tenth of the distance to the nearer of 0 and 1, so a small
    chance is never rounded to none and a large one never to certainty (1 <= n < m).

    >>> about(0.75), about(1 / 3), about(0.4754), about(0.5761), about(0.2689)
    ((3, 4), (1, 3), (1, 2), (3, 5), (1, 4))
    >>> about(0.9), about(0.99), about(0.00005)
    ((9, 10), (99, 100), (1, 10000))
    """
    if not 0 < probability < 1:
        raise ValueError(f"a probability strictly between 0 and 1, not {probability}")
    tolerance = min(probability, 1 - probability) / 10
    best: tuple[float, int, int] | None = None
    for m in DENOMINATORS:
        n = min(max(round(probability * m), 1), m - 1)
        error = abs(n / m - probability)
        if error <= tolerance:
            return n, m
        if best is None or error < best[0]:
            best = (error, n, m)
    assert best is not None
    return best[1], best[2]


def odds_at_most(sampler: dict[str, Any]) -> Decimal:
    """e^epsilon of a sampler's integers rounded up to two decimals (never below the true factor,
    never to nearest), for "at most N to 1".

    >>> odds_at_most({"kind": "grr", "k": 2, "modulus": 4, "keep": 3, "other": 1})
    Decimal('3.00')
    >>> from ldp import BitFlip
    >>> odds_at_most(BitFlip(1.1).sampler()), odds_at_most(BitFlip(1.0).sampler())
    (Decimal('3.01'), Decimal('2.72'))
    """
    return loss_of(sampler).odds_up(2)


@dataclass(frozen=True)
class Chance:
    n: int
    m: int


@dataclass(frozen=True)
class QuestionWording:
    """What the page says about one question: the odds bound, and how often a report is true.

    A direct question (`randomized` False) is sent as given: it has no odds bound and no chances."""

    odds: Decimal | None  # anyone's odds on the true answer change by at most odds to 1
    unary: bool  # one mark per option (then `true` and `other` are per option)
    true: Chance | None  # index: P(report = truth); unary: P(the true answer's option is marked)
    other: Chance | None  # index: P(report = one given other option); unary: P(another option is marked)
    randomized: bool = True
    # "boxes" (multi-select; true: P(a box is sent as left)), "bit" (a 1-bit mean; true: P(the bit is kept)),
    # "noise" (discrete Laplace; no chances): their receipts say what the report is in words of their own.
    extra: str | None = None
    forced: Forced | None = None  # q-randomized response: its probabilities exactly


@dataclass(frozen=True)
class Forced:
    """q-randomized response as forced response, exactly: the real answer with probability `truth` (q),
    otherwise a fair coin, so yes and no each with probability `coin` ((1 - q)/2): "2/3 (≈ 0.666667)"."""

    truth: str
    coin: str


def exactly(value: Fraction) -> str:
    """A probability exactly: a decimal that says it ("0.25", in the active language's digits), or the fraction
    with its decimal to six places ("1/6 (≈ 0.166667)").

    >>> exactly(Fraction(1, 4)), exactly(Fraction(1, 6))
    ('0.25', '1/6 (≈ 0.166667)')
    """
    written = exact_q.text(value)
    if "/" not in written:
        return number_format(Decimal(written))
    return f"{written} (≈ {number_format(round(Decimal(value.numerator) / Decimal(value.denominator), 6), 6)})"


def forced(mechanism: dict[str, Any]) -> Forced | None:
    """The exact probabilities of q-randomized response (described with `q_exact`), None for any other: from the
    sampler's integers, what the browser does (keep / modulus = (1 + q)/2, other / modulus = (1 - q)/2)."""
    if not mechanism.get("q_exact"):
        return None
    sampler = mechanism["sampler"]
    coin = Fraction(sampler["other"], sampler["modulus"])
    return Forced(truth=exactly(Fraction(sampler["keep"], sampler["modulus"]) - coin), coin=exactly(coin))


def extra_words(sampler: dict[str, Any]) -> str | None:
    """Which words of its own a report's receipt needs, from what its mechanism is (None: the common ones)."""
    match by_sampler(sampler).shape:
        case Shape.TICKS:
            return "boxes"
        case Shape.MEAN_BIT:
            return "bit"
        case Shape.LAPLACE:
            return "noise"
        case Shape.INDEX | Shape.DIRECT | Shape.BITS | Shape.NUMBER:
            return None
        case _:
            assert_never(by_sampler(sampler).shape)


def for_mechanism(mechanism: dict[str, Any]) -> QuestionWording:
    """From a mechanism as `ldp.Mechanism.describe()` (and so the definition API) describes it."""
    sampler = mechanism["sampler"]
    if not by_sampler(sampler).randomized:  # sent as given
        return QuestionWording(odds=None, unary=False, true=None, other=None, randomized=False)
    odds = odds_at_most(sampler)
    extra = extra_words(sampler)
    if by_sampler(sampler).keeps_bits:
        kept = sampler["keep"] / sampler["modulus"]
        return QuestionWording(odds=odds, unary=mechanism["encoding"] == "bits", true=Chance(*about(kept)),
                               other=Chance(*about(1 - kept)), extra=extra)
    if extra is not None:  # discrete Laplace: a number plus noise has no chances to state
        return QuestionWording(odds=odds, unary=False, true=None, other=None, extra=extra)
    return QuestionWording(
        odds=odds,
        unary=mechanism["encoding"] == "bits",
        true=Chance(*about(mechanism["p"])),
        other=Chance(*about(mechanism["q_other"])),
        forced=forced(mechanism),
    )


def deniability_text(sampler: dict[str, Any]) -> str:
    """What `ldp.deniability` says about one question, in the active language, from the same figures
    (rounded up from the sampler's integers, never to nearest; only the decimal separator changes).

    >>> deniability_text({"kind": "grr", "k": 2, "modulus": 4, "keep": 3, "other": 1})
    "Seeing what your browser sends changes anyone's odds between two answers by at most 3.00 times; \
if both were equally likely beforehand, a guess of your answer from it is right at most 75% of the time."
    """
    if not by_sampler(sampler).randomized:
        return _("Your answer to this question is sent as given: it is not randomized.")
    loss = loss_of(sampler)
    return _("Seeing what your browser sends changes anyone's odds between two answers by at most %(odds)s times; "
             "if both were equally likely beforehand, a guess of your answer from it is right at most "
             "%(guess)s%% of the time.") % {"odds": number_format(loss.odds_up(2), 2), "guess": loss.guess_up(0)}

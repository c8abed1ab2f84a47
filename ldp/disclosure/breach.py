"""What a stolen database reveals about one respondent's randomized answer.

An attacker who holds a respondent's stored report r and knows the population's shares pi (the prior)
guesses the true answer best by the answer x that maximizes pi(x) P(r | x) (Bayes). That guess is right
with probability

    attacker_accuracy = sum over reports r of max over answers x of pi(x) P(r | x),

beside baseline_accuracy = max pi, the best guess without the report. odds_bound = e^epsilon is the
largest likelihood ratio P(r | x) / P(r | x'): seeing a report multiplies anyone's odds of one answer
over another by at most that much, whatever the prior.

What a prior ranges over (`answers`): the k options of a one-of-k question (yes/no: [no, yes]); the 2^k
subsets of a multi-select question in bitmask order (entry s: the options j with bit j of s set;
`subsets_prior` builds it from per-option shares); the steps + 1 grid values lo, lo + step, ..., hi of a
numeric question (onebit, dlaplace). The accuracies are exact fractions of the sampler's integers
(`ldp.disclosure.sums`) but for discrete Laplace (floats: its e^(-s/t) is irrational).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..mechanisms.base import Mechanism
from ..mechanisms.multiselect import MultiSelect
from ..mechanisms.remembered import Composed
from . import channels, record, sums
from .channels import Number, answers

Prior = Sequence[Number]
TOLERANCE = Fraction(1, 10**9)  # how far from 1 a prior's sum may be (it is then scaled to 1 exactly)


@dataclass(frozen=True)
class Breach:
    """The three figures of a breach: the Bayes attacker's accuracy, the baseline (max prior) and the
    odds bound (math.inf for a question sent as given)."""

    attacker_accuracy: float
    baseline_accuracy: float
    odds_bound: float

    def as_dict(self) -> dict[str, float | None]:
        """The JSON of `python -m ldp breach`: odds_bound None (null) when infinite."""
        return {"attacker_accuracy": self.attacker_accuracy, "baseline_accuracy": self.baseline_accuracy,
                "odds_bound": self.odds_bound if math.isfinite(self.odds_bound) else None}


def check_prior(prior: Iterable[Number], size: int) -> tuple[Fraction, ...]:
    """The prior as exact fractions summing to 1; ValueError unless it has `size` entries, each in [0, 1],
    summing to 1 within 1e-9 (such a sum is then scaled to 1).

    >>> check_prior(["0.25", 0.75], 2)
    (Fraction(1, 4), Fraction(3, 4))
    """
    try:
        values = tuple(Fraction(value) for value in prior)  # a float exactly; text as the decimal it says
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        raise ValueError("the prior must be numbers") from None
    if len(values) != size:
        raise ValueError(f"the prior must have {size} entries, one per answer, got {len(values)}")
    if any(not 0 <= value <= 1 for value in values):
        raise ValueError("each entry of the prior must lie in [0, 1]")
    total = sum(values, Fraction(0))
    if abs(total - 1) > TOLERANCE:
        raise ValueError(f"the prior must sum to 1, got {float(total):.12g}")
    return values if total == 1 else tuple(value / total for value in values)


def accuracy(mechanism: Mechanism, prior: Prior) -> Number:
    """sum_r max_x pi(x) P(r | x) (see the module docstring), the prior checked by `check_prior`.

    >>> from ldp import QRandomizedResponse
    >>> accuracy(QRandomizedResponse("0.5"), ["0.5", "0.5"])
    Fraction(3, 4)
    """
    pi = _checked(mechanism, prior)
    return sums.accuracy(mechanism, pi)


def baseline(prior: Prior) -> Number:
    """max_x pi(x): the best guess without the report."""
    return max(prior)


def odds_bound(mechanism: Mechanism) -> float:
    """e^epsilon of the mechanism's integers (ratio e^rational of `sampler_loss`): the largest
    P(r | x) / P(r | x') over reports and answers; math.inf for a question sent as given."""
    if not mechanism.randomized:
        return math.inf
    if isinstance(mechanism, Composed):  # one wave of two layers: the composed channel's exact fractions
        return math.exp(mechanism.layers.wave_epsilon)
    ratio, rational = mechanism.sampler_loss(mechanism.sampler())
    return float(ratio) * math.exp(rational)


def breach(mechanism: Mechanism, prior: Prior) -> Breach:
    """The three figures for one question with this prior (checked by `check_prior`).

    >>> from ldp import KaryRR
    >>> found = breach(KaryRR(1.0, 3), [0.5, 0.3, 0.2])
    >>> round(found.attacker_accuracy, 4), found.baseline_accuracy, round(found.odds_bound, 4)
    (0.5761, 0.5, 2.7183)
    """
    pi = _checked(mechanism, prior)
    return Breach(float(sums.accuracy(mechanism, pi)), float(max(pi)), odds_bound(mechanism))


def breach_given(mechanism: Mechanism, groups: Iterable[tuple[Number, Prior]]) -> Breach:
    """An attacker who also knows each respondent's direct answers: groups are (share of respondents,
    prior of the randomized answer in that group), e.g. one per combination of direct answers with the
    model's fitted shares. Both accuracies are the share-weighted means of the groups' (the shares checked
    as a prior is)."""
    listed = list(groups)
    shares = check_prior([share for share, _ in listed], len(listed))
    priors = [_checked(mechanism, prior) for _, prior in listed]
    attacker = sum((share * sums.accuracy(mechanism, pi) for share, pi in zip(shares, priors, strict=True)),
                   Fraction(0))
    base = sum((share * max(pi) for share, pi in zip(shares, priors, strict=True)), Fraction(0))
    return Breach(float(attacker), float(base), odds_bound(mechanism))


def record_breach(mechanisms: Sequence[Mechanism], prior: Mapping[tuple[int, ...], Number]) -> Breach:
    """The whole record: guess all the answers at once from all the reports (independent channels given the
    answers). prior maps each combination of answers (one index per mechanism, as `answers` counts them) to
    its share; missing combinations have share 0. odds_bound is the product of the questions' bounds
    (sequential composition: e^(sum of epsilons)). ValueError if there are too many reports to enumerate."""
    if not mechanisms:
        raise ValueError("a record needs at least one question")
    sizes = [answers(mechanism) for mechanism in mechanisms]
    cells = list(prior)
    for cell in cells:
        if len(cell) != len(sizes) or any(not 0 <= x < size for x, size in zip(cell, sizes, strict=False)):
            raise ValueError(f"each combination must give one answer per question within {sizes}, got {cell!r}")
    shares = dict(zip(cells, check_prior([prior[cell] for cell in cells], len(cells)), strict=True))
    for i, mechanism in enumerate(mechanisms):  # each question's margin of the joint prior
        margin = [Fraction(0)] * sizes[i]
        for cell, share in shares.items():
            margin[cell[i]] += share
        _allowed(mechanism, margin)
    found = record.accuracy([channels.rows(mechanism) for mechanism in mechanisms], shares)
    bound = math.prod(odds_bound(mechanism) for mechanism in mechanisms)
    return Breach(float(found), float(max(shares.values())), bound)


def subsets_prior(inclusion: Sequence[Number], at_most: int | None = None) -> list[Fraction]:
    """A multi-select prior over the 2^k subsets (bitmask order) from per-option shares, the options ticked
    independently (conditioned on at most `at_most` ticks when given).

    >>> [str(x) for x in subsets_prior(["0.5", "0.25"])]
    ['3/8', '3/8', '1/8', '1/8']
    """
    shares = [Fraction(value) for value in inclusion]
    if any(not 0 <= share <= 1 for share in shares):
        raise ValueError("each option's share must lie in [0, 1]")
    found = []
    for subset in range(1 << len(shares)):
        weight = Fraction(1)
        for j, share in enumerate(shares):
            weight *= share if (subset >> j) & 1 else 1 - share
        found.append(weight if at_most is None or subset.bit_count() <= at_most else Fraction(0))
    total = sum(found, Fraction(0))
    if total == 0:
        raise ValueError(f"these shares give no subset of at most {at_most} options")
    return [weight / total for weight in found]


def _checked(mechanism: Mechanism, prior: Prior) -> tuple[Fraction, ...]:
    pi = check_prior(prior, answers(mechanism))
    _allowed(mechanism, pi)
    return pi


def _allowed(mechanism: Mechanism, pi: Sequence[Fraction]) -> None:
    """A multi-select prior gives no share to more ticks than at_most allows."""
    if not isinstance(mechanism, MultiSelect) or mechanism.at_most is None:
        return
    if any(share and subset.bit_count() > mechanism.at_most for subset, share in enumerate(pi)):
        raise ValueError(f"the prior gives a share to a subset of more than at_most = {mechanism.at_most} options")

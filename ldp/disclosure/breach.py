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
numeric question (onebit, dlaplace).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..mechanism_base import Mechanism

Number = float | Fraction
Prior = Sequence[Number]


@dataclass(frozen=True)
class Breach:
    """The three figures of a breach: the Bayes attacker's accuracy, the baseline (max prior) and the
    odds bound (math.inf for a question sent as given)."""

    attacker_accuracy: float
    baseline_accuracy: float
    odds_bound: float

    def as_dict(self) -> dict[str, float | None]:
        """The JSON of `python -m ldp breach`: odds_bound None (null) when infinite."""
        raise NotImplementedError


def answers(mechanism: Mechanism) -> int:
    """How many entries a prior for this mechanism has: k (one of k), 2^k (multiselect), steps + 1 (numeric)."""
    raise NotImplementedError


def check_prior(prior: Iterable[Number], size: int) -> tuple[Fraction, ...]:
    """The prior as exact fractions; ValueError unless it has `size` entries in [0, 1] summing to 1 within 1e-9."""
    raise NotImplementedError


def accuracy(mechanism: Mechanism, prior: Prior) -> Number:
    """sum_r max_x pi(x) P(r | x), exactly (a Fraction) for every mechanism but dlaplace (a float)."""
    raise NotImplementedError


def baseline(prior: Prior) -> Number:
    """max_x pi(x): the best guess without the report."""
    raise NotImplementedError


def odds_bound(mechanism: Mechanism) -> float:
    """e^epsilon of the mechanism's integers: the largest P(r | x) / P(r | x'); math.inf if not randomized."""
    raise NotImplementedError


def breach(mechanism: Mechanism, prior: Prior) -> Breach:
    """The three figures for one question with this prior (checked by `check_prior`)."""
    raise NotImplementedError


def breach_given(mechanism: Mechanism, groups: Iterable[tuple[Number, Prior]]) -> Breach:
    """An attacker who also knows each respondent's direct answers: groups are (share of respondents,
    prior of the randomized answer in that group), e.g. one per combination of direct answers with the
    model's fitted shares. Both accuracies are the share-weighted means of the groups'."""
    raise NotImplementedError


def record_breach(mechanisms: Sequence[Mechanism], prior: Mapping[tuple[int, ...], Number]) -> Breach:
    """The whole record: guess all the answers at once from all the reports (independent channels given the
    answers). prior maps each combination of answers (one index per mechanism, as `answers` counts them) to
    its share; missing combinations have share 0. odds_bound is the product of the questions' bounds."""
    raise NotImplementedError


def subsets_prior(inclusion: Sequence[Number], at_most: int | None = None) -> list[Fraction]:
    """A multi-select prior over the 2^k subsets from per-option shares, options independent (conditioned
    on at most `at_most` ticks when given)."""
    raise NotImplementedError

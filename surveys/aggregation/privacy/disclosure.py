"""The statement's figures of what a stolen database or an open release reveals, from `ldp.disclosure`: the one
place the app calls it.

- The breach: for each randomized question, the Bayes attacker's accuracy from one stored report beside the best
  guess without it, with the population's estimated shares as the prior once there are reports (the debiased
  estimates, negative ones taken as 0, rescaled to 1; a multi-select's per-option shares, ticked independently),
  else, and for a numeric mean (whose shares are not estimated), every answer equally likely: the planner's worst
  case. The whole record: all randomized questions guessed together, their answers taken as independent.
- The shuffled release: each question's reports alone, shuffled, are (epsilon_c, delta)-DP centrally (Feldman,
  McMillan & Talwar's numerical bound). Its cost grows with n, so it is computed at most at NUMERIC_N respondents
  (fewer respondents only weaken the amplification: still an upper bound) and the closed form's bound at the true
  n is taken when smaller; each figure is cached.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import product

from django.core.cache import cache

import ldp
from ldp import disclosure
from ldp.disclosure import fitted, remembered
from ldp.mechanisms.remembered import layers_of
from surveys.collection.plan import PlannedQuestion

NUMERIC_N = 20_000  # the numerical bound's n at most: ~0.5 s each (10^6 would take a minute)
CACHED = 24 * 3600
RECORD_CELLS = 4096  # combinations of answers the whole record's breach enumerates at most


@dataclass(frozen=True)
class Breach:
    attacker: float  # the Bayes attacker's accuracy with the report(s)
    baseline: float  # the best guess without them
    # A remembered question (`ldp.mechanisms.remembered`): with every wave's reports of the respondent linked, at most
    # this (the
    # permanent layer's accuracy, whatever the number of waves); `attacker` is then one wave's.
    every_wave: float | None = None

    @property
    def every_wave_percent(self) -> float | None:
        return None if self.every_wave is None else 100 * self.every_wave

    @property
    def attacker_percent(self) -> float:
        return 100 * self.attacker

    @property
    def baseline_percent(self) -> float:
        return 100 * self.baseline


def epsilon_text(epsilon: float) -> Decimal:
    """A central epsilon rounded up to 4 decimals (an upper bound stays one), at least 0.0001; a Decimal, which the
    page writes with the language's separator as it does the other epsilons."""
    return Decimal(max(math.ceil(epsilon * 10**4), 1)).scaleb(-4)


def prior(question: PlannedQuestion, shares: Sequence[float] | None) -> list[Fraction] | None:
    """The prior of one question's true answer: the estimated shares (None: all answers equally likely); None for a
    mechanism the figures do not cover."""
    mechanism = question.mechanism
    try:
        size = disclosure.answers(mechanism)
    except ValueError:
        return None
    if mechanism.shape is ldp.Shape.TICKS:  # any subset of the options, at most `at_most` of them
        inclusion = [min(max(Fraction(s), Fraction(0)), Fraction(1)) for s in shares] if shares else None
        return disclosure.subsets_prior(inclusion or [Fraction(1, 2)] * mechanism.k, mechanism.to_dict()["at_most"])
    if shares is None or len(shares) != size:
        return [Fraction(1, size)] * size
    kept = [max(Fraction(share), Fraction(0)) for share in shares]
    total = sum(kept, Fraction(0))
    return [share / total for share in kept] if total > 0 else [Fraction(1, size)] * size


def breach(question: PlannedQuestion, pi: Sequence[Fraction] | None) -> Breach | None:
    """None for a question the figures do not cover. A remembered question's is one wave's report (a wave's stored
    rows are not linked to another's), with every wave's linked as its bound (`every_wave`): its common pattern
    can link them (docs/privacy.md), and no number of waves reveals more than the permanent layer."""
    if pi is None:
        return None
    mechanism = question.mechanism
    try:
        found = disclosure.breach(mechanism, pi)
        layers = layers_of(mechanism)
        every = None if layers is None else remembered.accuracy(layers, pi, None)
    except ValueError:
        return None
    return Breach(found.attacker_accuracy, found.baseline_accuracy, None if every is None else float(every))


def given(mechanism: ldp.Mechanism, cells: fitted.Cells) -> tuple[Breach, list[tuple[int, list[Fraction]]]]:
    """The breach with the direct answers as prior (`direct_prior`): cells are each combination's per-option counts
    and respondents; with each combination's fitted prior (`ldp.disclosure.fitted`)."""
    found = fitted.breach(mechanism, cells)
    return Breach(found.attacker_accuracy, found.baseline_accuracy), fitted.priors(mechanism, cells)


def given_record(mechanisms: Sequence[ldp.Mechanism],
                 groups: Sequence[tuple[int, Sequence[Sequence[Fraction]]]]) -> Breach | None:
    """The whole record with the direct answers as prior; None when too many combinations to enumerate."""
    try:
        found = fitted.record(mechanisms, groups)
    except ValueError:
        return None
    return Breach(found.attacker_accuracy, found.baseline_accuracy)


def record(questions: Sequence[PlannedQuestion], priors: Sequence[Sequence[Fraction] | None]) -> Breach | None:
    """All randomized questions at once (independent answers); None when too many combinations to enumerate, or a
    question is not covered."""
    if not questions or any(pi is None for pi in priors) or math.prod(len(pi or ()) for pi in priors) > RECORD_CELLS:
        return None
    known = [pi for pi in priors if pi is not None]
    joint = {cell: math.prod((pi[x] for pi, x in zip(known, cell, strict=True)), start=Fraction(1))
             for cell in product(*(range(len(pi)) for pi in known))}
    try:
        found = disclosure.record_breach([q.mechanism for q in questions], {c: s for c, s in joint.items() if s})
    except ValueError:
        return None
    return Breach(found.attacker_accuracy, found.baseline_accuracy)


def delta(n: int) -> float:
    """The delta stated: min(1 / n^1.1, 1e-6)."""
    return disclosure.default_delta(max(n, 1))


def central_epsilon(epsilon0: float, n: int, at: float) -> float | None:
    """An upper bound on the central epsilon of n shuffled epsilon0-LDP reports at delta `at`; None when the local
    epsilon is outside what the bound takes (or n < 2: nothing to hide among)."""
    if n < 2:
        return None
    key = f"shuffle:{epsilon0!r}:{n}:{at!r}"
    found = cache.get(key)
    if found is None:
        try:
            numeric = disclosure.epsilon_c(epsilon0, min(n, NUMERIC_N), at)
            found = min(numeric, disclosure.closed_form(epsilon0, n, at))
        except ValueError:
            return None
        cache.set(key, found, CACHED)
    return float(found)


def local_epsilon(mechanism: ldp.Mechanism) -> float:
    return float(mechanism.effective_epsilon)

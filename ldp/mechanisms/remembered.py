"""Survey waves with remembered randomization: a permanent randomized response kept per respondent, question
and true answer, and a fresh instantaneous randomization of it in every wave (RAPPOR: Erlingsson, Pihur &
Korolova 2014; Ding, Kulkarni & Yekhanin 2017 for repeated collection).

Layers. The permanent layer B' is the mechanism `permanent` applied once to the true answer x and remembered;
each wave reports `instant` applied to B' (for a unary encoding, to each of B''s bits). Both are of one family:
an index channel over k options (qrr, bitflip, krr) or a unary encoding over k bits (sue, oue), with exact
integers (p1, q1) and (p2, q2). The composed channel M = M_instant M_permanent is of the same form:
    index:  p = p1 p2 + (k - 1) q1 q2,      q_other = p1 q2 + q1 p2 + (k - 2) q1 q2
    unary:  p = p1 p2 + (1 - p1) q2,        q_other = q1 p2 + (1 - q1) q2          (per bit)
exact fractions of the integers, so every wave debiases through (p, q_other) like a single mechanism.

Privacy. One wave's report costs eps(M) <= min(eps(permanent), eps(instant)) (M is a post-processing of either
layer's output distribution family); any number of waves with an unchanged answer cost at most eps(permanent),
since every report is a randomization of B' alone. A changed answer draws a new permanent response (for the new
value), so a respondent whose answer takes d distinct values costs at most d eps(permanent).

The difference between two waves answered by the same n respondents. Their reports are correlated twice: the
truths (a respondent keeps an answer unless it changes) and, under memoization, the shared B'. Reports are
never linked across waves, so the joint distribution of the two waves' answers is not observed; it is taken
as the one with the fewest changes (m_j = min(pi_1j, pi_2j) of the respondents keep answer j; that is the
stated assumption, exact when answers only change as far as the fractions require). Then per option or bit j
    n Cov(lambda_hat_1j, lambda_hat_2j) = gap^2 (m_j - pi_1j pi_2j)
                                          + (p2 - q2)^2 (m_j p1 (1 - p1) + (m - m_j) q1 (1 - q1)),
gap = p - q_other of the composed channel, m = sum_j m_j (the second term only under memoization: it is the
variance of P(report j | B') that the two waves share), and
    Var(pi_hat_2j - pi_hat_1j) = Var(pi_hat_1j) + Var(pi_hat_2j) - 2 Cov(lambda_hat_1j, lambda_hat_2j) / gap^2,
plugged in at the estimates projected onto the simplex (a unary encoding's answer is one option too); a
normal interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..stats.estimates import Estimate, debias, project_to_simplex
from ..stats.intervals import check_confidence, z_value
from .base import IntArray, Mechanism
from .unary import UnaryMechanism


def channel(mechanism: Mechanism) -> tuple[Fraction, Fraction]:
    """(p, q_other) of a mechanism, exact fractions of its sampler's integers."""
    a, b, modulus = mechanism.channel()
    return Fraction(a, modulus), Fraction(b, modulus)


def compose(permanent: tuple[Fraction, Fraction], instant: tuple[Fraction, Fraction], k: int,
            unary: bool) -> tuple[Fraction, Fraction]:
    """(p, q_other) of `instant` applied to the output of `permanent`, both given as (p, q_other) (module docstring)."""
    (p1, q1), (p2, q2) = permanent, instant
    if unary:
        return p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2
    return p1 * p2 + (k - 1) * q1 * q2, p1 * q2 + q1 * p2 + (k - 2) * q1 * q2


@dataclass(frozen=True)
class Remembered:
    """A permanent layer and an instantaneous one of the same family and k; immutable, like a mechanism."""

    permanent: Mechanism
    instant: Mechanism

    def __post_init__(self) -> None:
        layers = (self.permanent, self.instant)
        if not all(layer.one_of_k for layer in layers) or self.permanent.encoding != self.instant.encoding:
            raise ValueError("remembered randomization takes two index channels (qrr, bitflip, krr) or two unary "
                             "encodings (sue, oue)")
        if self.permanent.k != self.instant.k:
            raise ValueError("both layers must have the same number of options")

    @property
    def unary(self) -> bool:
        return isinstance(self.instant, UnaryMechanism)

    @property
    def k(self) -> int:
        return self.instant.k

    def exact_channel(self) -> tuple[Fraction, Fraction]:
        """(p, q_other) of the composed channel, exact (module docstring)."""
        return compose(channel(self.permanent), channel(self.instant), self.k, self.unary)

    @property
    def wave_epsilon(self) -> float:
        """One wave's loss, from the composed channel's exact fractions."""
        p, q = self.exact_channel()
        ratio = p * (1 - q) / ((1 - p) * q) if self.unary else p / q
        return math.log(ratio)

    @property
    def all_waves_epsilon(self) -> float:
        """Any number of waves with an unchanged answer: the permanent layer's loss."""
        return self.permanent.effective_epsilon

    def randomize(self, answers: npt.ArrayLike, rng: np.random.Generator) -> npt.NDArray[Any]:
        """Reports of every wave: `answers` is (waves, n), each row the n respondents' true answers in that
        wave. A respondent's permanent response to a value is drawn once (the first wave with that value) and
        remembered; each wave randomizes it afresh."""
        answers = np.asarray(answers, dtype=np.int64)
        remembered: dict[int, npt.NDArray[Any]] = {}
        waves = []
        for row in answers:
            for value in np.unique(row):
                if int(value) not in remembered:  # every respondent's permanent response to this value
                    remembered[int(value)] = self.permanent.randomize(np.full(row.size, value), rng)
            permanent = remembered[int(row[0])].copy() if row.size else row
            for value, responses in remembered.items():
                chosen = row == value
                permanent[chosen] = responses[chosen]
            waves.append(self._instantly(permanent, rng))
        return np.stack(waves)

    def _instantly(self, permanent: npt.NDArray[Any], rng: np.random.Generator) -> npt.NDArray[Any]:
        if not self.unary:
            return self.instant.randomize(permanent, rng)
        instant = self.instant
        assert isinstance(instant, UnaryMechanism)
        u = rng.integers(0, instant.modulus, size=permanent.shape, dtype=np.int64)
        return np.where(permanent == 1, u < instant.one_if_true, u < instant.one_if_false).astype(np.uint8)

    def estimate(self, counts: npt.ArrayLike, n: int, **options: Any) -> Estimate:
        """One wave's estimate, debiased through the composed channel."""
        p, q = self.exact_channel()
        return debias(counts, n, float(p), float(q), **options)

    def counts(self, reports: npt.ArrayLike) -> IntArray:
        return self.instant.counts(reports)

    def difference(self, first: Estimate, second: Estimate, confidence: float = 0.95) -> Difference:
        """second - first for the same n respondents (module docstring), with a normal interval."""
        return difference(first, second, self.exact_channel(), self._layers(), confidence)

    def _layers(self) -> tuple[float, float, float, float]:
        (p1, q1), (p2, q2) = channel(self.permanent), channel(self.instant)
        return float(p1), float(q1), float(p2), float(q2)


@dataclass(frozen=True)
class Difference:
    estimate: tuple[float, ...]
    std_error: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    confidence: float


def difference(first: Estimate, second: Estimate, channel: tuple[Fraction, Fraction],
               layers: tuple[float, float, float, float] | None, confidence: float) -> Difference:
    """second - first of two waves of the same respondents; `layers` (p1, q1, p2, q2) under memoization,
    None when each wave is randomized afresh (module docstring)."""
    check_confidence(confidence)
    if first.n != second.n or first.n == 0:
        raise ValueError("the difference needs the same respondents, at least one, in both waves")
    n = first.n
    p, q = (float(x) for x in channel)
    gap = p - q
    one, two = np.asarray(first.estimate), np.asarray(second.estimate)
    fit_one, fit_two = project_to_simplex(one), project_to_simplex(two)  # one answer each, unary or not
    kept = np.minimum(fit_one, fit_two)
    moment = gap**2 * (kept - fit_one * fit_two)
    if layers is not None:
        p1, q1, p2, q2 = layers
        moment = moment + (p2 - q2) ** 2 * (kept * p1 * (1 - p1) + (kept.sum() - kept) * q1 * (1 - q1))
    variance = (np.asarray(first.std_error) ** 2 + np.asarray(second.std_error) ** 2
                - 2.0 * moment / (n * gap**2))
    se = np.sqrt(np.maximum(variance, 0.0))
    estimate = two - one
    half = z_value(confidence) * se
    return Difference(tuple(map(float, estimate)), tuple(map(float, se)), tuple(map(float, estimate - half)),
                      tuple(map(float, estimate + half)), confidence)


# What a composed mechanism takes from its instantaneous layer: what its reports are and how they travel.
_INSTANT_TRAITS = ("name", "label", "encoding", "shape", "sampler_rule", "sampler_kind", "yes_no", "one_of_k",
                   "keeps_bits", "parameter", "codebook_formula", "k")


@dataclass(frozen=True)
class Composed(Mechanism):
    """One wave's reports of a question that remembers its randomization, as a mechanism: the instantaneous layer's
    reports (its sampler is what the browser draws each wave; the permanent layer is published beside it), read
    through the composed channel (`Remembered.exact_channel`). Every reader that debiases through `p` and `q_other`
    (estimates, sequences, cross-tabs, weighting, models, codebooks) is then right without knowing of waves.

    Its loss is one wave's (`Remembered.wave_epsilon`); `to_dict` is the instantaneous layer's with the permanent
    one under "permanent", which `ldp.mechanisms.registry.from_dict` reads back."""

    layers: Remembered

    def __post_init__(self) -> None:
        if not isinstance(self.layers, Remembered):
            raise TypeError("a composed mechanism takes the two layers as a Remembered")
        for trait in _INSTANT_TRAITS:  # instance values over the class's: those of the instantaneous layer
            object.__setattr__(self, trait, getattr(self.layers.instant, trait))

    @property
    def keys(self) -> frozenset[str]:  # type: ignore[override]  # an instance's, like the traits above
        return self.layers.instant.keys | {"permanent"}

    # --- the channel: the two layers composed ------------------------------------------------

    def sampler(self) -> dict[str, Any]:
        return self.layers.instant.sampler()

    def channel(self) -> tuple[int, int, int]:
        """(a, b, M) with p = a / M and q_other = b / M of the composed channel, M the smallest common denominator."""
        p, q = self.layers.exact_channel()
        modulus = math.lcm(p.denominator, q.denominator)
        return p.numerator * (modulus // p.denominator), q.numerator * (modulus // q.denominator), modulus

    @property
    def p(self) -> float:
        return float(self.layers.exact_channel()[0])

    @property
    def q_other(self) -> float:
        return float(self.layers.exact_channel()[1])

    def privacy_loss(self) -> float:
        return self.layers.wave_epsilon

    @property
    def permanent(self) -> Mechanism:
        return self.layers.permanent

    @property
    def instant(self) -> Mechanism:
        return self.layers.instant

    def to_dict(self) -> dict[str, Any]:
        return {**self.instant.to_dict(), "permanent": self.permanent.to_dict()}

    def describe(self) -> dict[str, Any]:
        """The instantaneous layer's description (its sampler, encoding, rule) with the composed channel and one
        wave's loss, and the permanent layer's own description beside it."""
        a, b, modulus = self.channel()
        return {**self.instant.describe(), "parameters": self.to_dict(), "effective_epsilon": self.effective_epsilon,
                "q_equivalent": self.q_equivalent, "p": self.p, "q_other": self.q_other,
                "p_exact": f"{a}/{modulus}", "q_other_exact": f"{b}/{modulus}",
                "permanent": self.permanent.describe()}

    def estimate(self, counts: npt.ArrayLike, n: int, **options: Any) -> Estimate:
        if not self.unary and int(np.sum(counts)) != n:  # as the instantaneous layer checks
            raise ValueError("for one-of-k reports the counts must add up to n")
        return super().estimate(counts, n, **options)

    # --- reports: the instantaneous layer's ---------------------------------------------------

    def encode(self, report: Any) -> int:
        return self.instant.encode(report)

    def decode(self, value: int) -> int | list[int]:
        return self.instant.decode(value)

    def slots(self, value: int) -> tuple[int, ...]:
        return self.instant.slots(value)

    def encode_many(self, reports: npt.ArrayLike) -> IntArray:
        return self.instant.encode_many(reports)

    def tally(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> IntArray:
        return self.instant.tally(values, counts)

    def counts(self, reports: npt.ArrayLike) -> IntArray:
        return self.instant.counts(reports)

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> npt.NDArray[Any]:
        """One wave's reports of respondents new to the series: a permanent response drawn, then randomized."""
        waves = self.layers.randomize(np.asarray(values, dtype=np.int64)[np.newaxis, :], rng)
        return np.asarray(waves[0])


def instantaneous(mechanism: Mechanism) -> Mechanism:
    """What a browser draws in one wave: a composed mechanism's instantaneous layer, any other mechanism itself."""
    return mechanism.instant if isinstance(mechanism, Composed) else mechanism


def layers_of(mechanism: Mechanism) -> Remembered | None:
    """A composed mechanism's two layers, None for any other mechanism (whose reports are its own alone)."""
    return mechanism.layers if isinstance(mechanism, Composed) else None


def composed(layers: Remembered) -> Mechanism:
    """One wave's reports of a question that remembers its randomization, read through both layers (`Composed`)."""
    return Composed(layers)

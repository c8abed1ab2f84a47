"""Confidence sequences for a numeric question's mean (see `ldp.sequences.fractions` for what they promise).

1-bit mean: the reported bit is a binary stream with rate lambda = q + u (p - q), u = (mean - lo) / (hi - lo),
so the mean's sequence is the bit's (`ldp.sequences.fractions.binary_sequence`, all of alpha) mapped to units.

Discrete Laplace: a report is r = i + Z, clamped to [-R, N + R], with the true grid index i in [0, N]
(N = steps) drawn from the respondents and Z the two-sided geometric noise, P(Z = z) ~ a^|z|. For the mean
index mu and any eta with |eta| < -ln a,
    E exp(eta (r - mu)) <= exp(psi(eta)),  psi(eta) = eta^2 N^2 / 8 + ln((1 - a)^2 / ((1 - a e^eta)(1 - a e^-eta)))
                                                     + ln(1 + 2^-60)
(Hoeffding's lemma for i in [0, N], the exact cumulant generating function of Z, and the clamp, which moves a
report towards the range and matters only with probability below 2^-60), so exp(eta (sum r - t mu) - t psi(eta))
is a non-negative supermartingale, and so is any mixture of them over eta. This is the additive-noise
Chernoff construction of Waudby-Smith, Wu & Ramdas (2023, "Nonparametric extensions of randomized response
for private confidence sets", ICML, the Laplace-Hoeffding sequence), with a fixed mixture over eta instead of
a predictable sequence: 2 x 16 points eta_j = +-(j / 16) eta_max, weighted like a normal prior N(0, rho^2)
with rho^2 = c / (t0 v), v = N^2 / 4 + Var(Z) the variance proxy, c as in `ldp.sequences.fractions`, and
eta_max = min(6 rho, 0.95 (-ln a)). ln M_t(mu) is convex in mu and at most 0 at mu = sum r / t, so
{mu : M_t(mu) < 1 / alpha} is an interval around the mean report; its ends are found as in `ldp.sequences.fractions`,
then clipped to [0, N] and mapped to units as lo + step * mu.
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ..stats.estimates import MeanEstimate
from ..stats.intervals import check_confidence
from .fractions import Channel, FloatArray, Sequence, boundary, fraction_sequence

LAPLACE_CONSTRUCTION = "discrete mixture of Laplace-Hoeffding supermartingales (Waudby-Smith, Wu & Ramdas 2023)"
_NODES = 16
_CLAMP = math.log1p(2.0**-60)


class MeanChannel(Channel, Protocol):
    """What the 1-bit mean's sequence reads of its mechanism (`ldp.mechanisms.onebit`)."""

    @property
    def lo(self) -> Decimal: ...

    @property
    def width(self) -> float: ...


class Sequenced(Protocol):
    """A mechanism that says whether its mean has a sequence, and gives it (every `ldp.Mechanism`)."""

    @property
    def name(self) -> str: ...

    @property
    def has_mean_sequence(self) -> bool: ...

    def mean_sequence(self, n: npt.ArrayLike, sums: npt.ArrayLike, *, confidence: float = 0.95,
                      planned: int | None = None) -> Sequence: ...


class LaplaceNoise(Protocol):
    """What the Laplace-Hoeffding sequence reads of a discrete Laplace mechanism (`ldp.mechanisms.dlaplace`)."""

    @property
    def lo(self) -> Decimal: ...

    @property
    def step(self) -> Decimal: ...

    @property
    def steps(self) -> int: ...

    @property
    def scale_num(self) -> int: ...

    @property
    def scale_den(self) -> int: ...

    @property
    def bound(self) -> int: ...

    @property
    def ratio(self) -> float: ...

    @property
    def noise_variance(self) -> float: ...


def onebit_sequence(mechanism: MeanChannel, n: npt.ArrayLike, ones: npt.ArrayLike, *, confidence: float = 0.95,
                    planned: int | None = None) -> Sequence:
    """The mean in units at each look, from the cumulative count of reports equal to 1 among the first n."""
    looks = np.asarray(n, dtype=np.int64).reshape(-1)
    ones = np.asarray(ones, dtype=np.int64).reshape(-1)
    fractions = fraction_sequence(mechanism, looks, np.stack([looks - ones, ones], axis=1), confidence=confidence,
                                  planned=planned)
    lo, width = float(mechanism.lo), mechanism.width
    return Sequence(n=looks, estimate=lo + width * fractions.estimate[:, 1:],
                    ci_low=lo + width * fractions.ci_low[:, 1:], ci_high=lo + width * fractions.ci_high[:, 1:],
                    confidence=confidence, planned=fractions.planned, construction=fractions.construction)


def mixture(mechanism: LaplaceNoise, planned: int, alpha: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(eta_j, ln w_j, psi(eta_j)): the mixture's points, log weights and cumulant bounds (module docstring).

    >>> from ldp import DiscreteLaplace
    >>> eta, log_w, psi = mixture(DiscreteLaplace(1.0, "0", "10", "1"), 1000, 0.05)
    >>> eta.size, round(float(np.exp(log_w).sum()), 12), bool((psi > 0).all())
    (32, 1.0, True)
    """
    a, steps = mechanism.ratio, mechanism.steps
    c = -2.0 * math.log(alpha) + math.log(1.0 - 2.0 * math.log(alpha))
    rho = math.sqrt(c / (planned * (steps**2 / 4.0 + mechanism.noise_variance)))
    top = min(6.0 * rho, 0.95 * mechanism.scale_den / mechanism.scale_num)
    half = top * np.arange(1, _NODES + 1) / _NODES
    eta = np.concatenate([-half[::-1], half])
    log_w = -(eta**2) / (2.0 * rho**2)
    log_w -= np.log(np.exp(log_w).sum())
    noise = 2.0 * math.log1p(-a) - np.log1p(-a * np.exp(eta)) - np.log1p(-a * np.exp(-eta))
    return eta, log_w, eta**2 * steps**2 / 8.0 + noise + _CLAMP


def laplace_sequence(mechanism: LaplaceNoise, n: npt.ArrayLike, totals: npt.ArrayLike, *,
                     confidence: float = 0.95, planned: int | None = None) -> Sequence:
    """The mean in units at each look, from the cumulative sum of the reports r (as sent, in grid steps)
    among the first n; `planned` (default: the last look) is where the interval is narrowest."""
    check_confidence(confidence)
    looks = np.asarray(n, dtype=np.int64).reshape(-1)
    total = np.asarray(totals, dtype=float).reshape(-1)
    if looks.size == 0 or (looks < 1).any() or total.shape != looks.shape:
        raise ValueError("every look needs at least one report, and one total per look")
    planned = int(looks.max()) if planned is None else planned
    eta, log_w, psi = mixture(mechanism, planned, 1.0 - confidence)
    threshold = math.log(1.0 / (1.0 - confidence))
    t = looks.astype(float)
    centre = total / t
    reach = float(mechanism.steps + 2 * mechanism.bound + 1)

    def excess(mu: FloatArray) -> FloatArray:
        exponent = log_w + eta * (total - t * mu)[:, None] - t[:, None] * psi
        top = exponent.max(axis=1)
        return np.asarray(top + np.log(np.exp(exponent - top[:, None]).sum(axis=1)) - threshold, dtype=float)

    low = boundary(excess, centre, centre - reach)
    high = boundary(excess, centre, centre + reach)
    lo, step = float(mechanism.lo), float(mechanism.step)
    steps = mechanism.steps
    return Sequence(n=looks, estimate=(lo + step * centre)[:, None],
                    ci_low=(lo + step * np.clip(low, 0, steps))[:, None],
                    ci_high=(lo + step * np.clip(high, 0, steps))[:, None], confidence=confidence, planned=planned,
                    construction=LAPLACE_CONSTRUCTION)


def has_sequence(mechanism: Sequenced) -> bool:
    """Whether the mechanism's mean has a confidence sequence (`Mechanism.has_mean_sequence`)."""
    return mechanism.has_mean_sequence


def mean_at_last_look(mechanism: Sequenced, estimate: MeanEstimate, report_sum: float, *, confidence: float,
                      planned: int) -> MeanEstimate:
    """`estimate` (the fixed-n one) with the sequence's interval at its n, from the sum of its n reports as sent
    (`GridMechanism.report_sum`: the 1-bit mean's count of 1s, discrete Laplace's sum of r)."""
    n = estimate.n
    if n == 0:
        return estimate
    if not mechanism.has_mean_sequence:
        raise ValueError(f"{mechanism.name} has no confidence sequence for its mean")
    found = mechanism.mean_sequence([n], [report_sum], confidence=confidence, planned=planned)
    return dataclasses.replace(estimate, ci_low=float(found.ci_low[0, 0]), ci_high=float(found.ci_high[0, 0]))

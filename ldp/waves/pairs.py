"""The difference between two waves of a series as a survey app meets them: waves of different sizes, only
some respondents in both, and perhaps different mechanisms (ldp.mechanisms.remembered covers the same n respondents
under one
design, and this module reduces to it there).

A wave's `WaveChannel` says how its reports were made: its channel (p, q_other), the composed one under remembered
randomization, and then its two layers. For two waves of n1 and n2 reports of which `shared` come from the same
respondents, per option (or bit) j,
    Cov(pi_hat_1j, pi_hat_2j) = shared c_j / (n1 n2 gap1 gap2),
    c_j = gap1 gap2 (m_j - pi_1j pi_2j) + (p2a - q2a)(p2b - q2b) (m_j p1 (1 - p1) + (m - m_j) q1 (1 - q1)),
c_j being one shared respondent's covariance of the two reports' indicators of j: the truths' part (m_j =
min(pi_1j, pi_2j) of them keep answer j, the fewest changes the fractions allow: the stated assumption) and,
when both waves remember the same permanent layer (p1, q1) and send it through instantaneous layers (p2a, q2a)
and (p2b, q2b), the part the permanent response shares. The shared respondents are taken to answer like the
rest of their waves. Two waves that remember different permanent layers correlate in a way no formula here
knows: their difference takes the largest variance any correlation allows, (se1 + se2)^2; so does a difference
whose caller knows no formula for the shared respondents' covariance (`known=False`: weighted estimates, whose
covariance runs through each wave's weights). Normal intervals and a two-sided z test of no change per option.

A numeric question's mean (`between_means`): the difference of the two waves' means, whose variance is the sum of
theirs for waves of different respondents, else the largest any correlation allows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..mechanisms.base import Mechanism
from ..mechanisms.remembered import Remembered, channel
from ..stats.estimates import Estimate, MeanEstimate, project_to_simplex
from ..stats.intervals import check_confidence, z_value

# How the two waves' reports were taken to correlate.
INDEPENDENT = "independent"  # no respondent in both
FEWEST_CHANGES = "fewest_changes"  # the shared respondents changed their answers as little as the fractions allow
UNKNOWN = "unknown"  # different permanent layers, or no formula (weighted): the largest variance any correlation allows


@dataclass(frozen=True)
class WaveChannel:
    """How one wave's reports were made: its channel, and its layers when it remembers a permanent one."""

    channel: tuple[Fraction, Fraction]
    permanent: tuple[Fraction, Fraction] | None = None
    instant: tuple[Fraction, Fraction] | None = None

    @classmethod
    def of(cls, mechanism: Mechanism, remembered: Remembered | None = None) -> WaveChannel:
        if remembered is None:
            return cls(channel(mechanism))
        return cls(remembered.exact_channel(), channel(remembered.permanent), channel(remembered.instant))

    @property
    def gap(self) -> float:
        p, q = self.channel
        return float(p - q)

    @property
    def instant_gap(self) -> float:
        p, q = self.instant or self.channel
        return float(p - q)


@dataclass(frozen=True)
class Change:
    """second - first, per option, with its standard error, normal interval and test of no change."""

    estimate: tuple[float, ...]
    std_error: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    z: tuple[float, ...]  # estimate / std_error (NaN where the standard error is 0)
    p_value: tuple[float, ...]  # two-sided
    confidence: float
    shared: int  # reports taken to come from respondents who answered both waves
    correlation: str  # INDEPENDENT, FEWEST_CHANGES or UNKNOWN


def between(first: Estimate, second: Estimate, first_design: WaveChannel, second_design: WaveChannel, shared: int,
            confidence: float = 0.95, known: bool = True) -> Change:
    """The change from `first` to `second` (module docstring); `shared` is clipped to the smaller wave.
    `known`: whether the shared respondents' covariance is the formula's (False: the largest variance)."""
    check_confidence(confidence)
    if first.n == 0 or second.n == 0:
        raise ValueError("both waves need reports")
    if len(first.estimate) != len(second.estimate):
        raise ValueError("both waves need the same options")
    shared = max(0, min(int(shared), first.n, second.n))
    se1, se2 = np.asarray(first.std_error), np.asarray(second.std_error)
    one, two = np.asarray(first.estimate), np.asarray(second.estimate)
    correlation = _correlation(first_design, second_design, shared, known)
    if correlation == UNKNOWN:
        variance = (se1 + se2) ** 2
    else:
        covariance = shared * _shared_moment(one, two, first_design, second_design) / (
            first.n * second.n * first_design.gap * second_design.gap)
        variance = se1**2 + se2**2 - 2.0 * covariance
    return _normal(two - one, np.sqrt(np.maximum(variance, 0.0)), confidence, shared, correlation)


def between_means(first: MeanEstimate, second: MeanEstimate, shared: int, confidence: float = 0.95) -> Change:
    """The change of a numeric question's mean from `first` to `second` (one value in each tuple), in its units.
    No mean remembers randomization, so the two waves' reports are randomized independently; respondents in both
    (`shared`, clipped to the smaller wave) make their true answers covary in a way their reports, never linked,
    do not tell: their change takes the largest variance any correlation allows, (se1 + se2)^2, else the sum of the
    two variances. The estimate is unbiased when each wave's mean is; a normal interval, a two-sided z test."""
    check_confidence(confidence)
    if first.n == 0 or second.n == 0:
        raise ValueError("both waves need reports")
    shared = max(0, min(int(shared), first.n, second.n))
    se1, se2 = first.std_error, second.std_error
    correlation, variance = (UNKNOWN, (se1 + se2) ** 2) if shared else (INDEPENDENT, se1**2 + se2**2)
    return _normal(np.array([second.mean - first.mean]), np.sqrt(np.array([variance])), confidence, shared,
                   correlation)


def _normal(change: np.ndarray, se: np.ndarray, confidence: float, shared: int, correlation: str) -> Change:
    """The change with its normal interval and two-sided test of no change (none where the standard error is 0)."""
    half = z_value(confidence) * se
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, change / np.where(se > 0, se, 1.0), math.nan)
    p_value = [math.erfc(abs(value) / math.sqrt(2.0)) if math.isfinite(value) else math.nan for value in z]
    return Change(_floats(change), _floats(se), _floats(change - half), _floats(change + half), _floats(z),
                  _floats(p_value), confidence, shared, correlation)


def _correlation(first: WaveChannel, second: WaveChannel, shared: int, known: bool) -> str:
    if shared == 0:
        return INDEPENDENT
    if not known:
        return UNKNOWN
    if first.permanent is not None and second.permanent is not None and first.permanent != second.permanent:
        return UNKNOWN
    return FEWEST_CHANGES


def _shared_moment(one: np.ndarray, two: np.ndarray, first: WaveChannel, second: WaveChannel) -> np.ndarray:
    """c_j: one shared respondent's covariance of the two waves' indicators of option j (module docstring)."""
    fit_one, fit_two = project_to_simplex(one), project_to_simplex(two)  # one answer each, unary or not
    kept = np.minimum(fit_one, fit_two)
    moment = first.gap * second.gap * (kept - fit_one * fit_two)
    if first.permanent is not None and first.permanent == second.permanent:
        p1, q1 = (float(x) for x in first.permanent)
        moment = moment + first.instant_gap * second.instant_gap * (
            kept * p1 * (1 - p1) + (kept.sum() - kept) * q1 * (1 - q1))
    return np.asarray(moment)


def _floats(values: object) -> tuple[float, ...]:
    return tuple(float(v) for v in np.asarray(values, dtype=float))

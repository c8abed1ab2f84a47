"""Confidence sequences: intervals that hold at every sample size at once, for a survey watched while it runs.

A fixed-n 95% interval misses 5% of the time at one planned n; looked at after every report it misses far
more often. A confidence sequence C_1, C_2, ... holds simultaneously: P(truth in C_t for every t >= 1) >=
1 - alpha, so the researcher may look as often as they like and stop whenever they like.

Construction (binary report streams: one option of an index channel, one bit of a unary or multi-select
channel, the 1-bit mean's bit). The reports X_1, X_2, ... are independent Bernoulli(lambda). For each
candidate lambda0 the beta-binomial mixture likelihood ratio
    M_t(lambda0) = E_{theta ~ Beta(s lambda0, s (1 - lambda0))} [prod_i theta^X_i (1 - theta)^(1 - X_i)]
                   / (lambda0^S_t (1 - lambda0)^(t - S_t))
                 = B(s lambda0 + S_t, s (1 - lambda0) + t - S_t) / B(s lambda0, s (1 - lambda0))
                   / (lambda0^S_t (1 - lambda0)^(t - S_t))
is a non-negative martingale with M_0 = 1 when lambda = lambda0, so by Ville's inequality
P(M_t(lambda) >= 1/alpha for some t) <= alpha, and C_t = {lambda0 : M_t(lambda0) < 1/alpha} is a confidence
sequence (Howard, Ramdas, McAuliffe & Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic confidence
sequences", Ann. Statist. 49(2), the beta-binomial mixture, with the prior centred at the hypothesised
lambda0 as in their Bernoulli confidence sequence). M_t(S_t / t) <= 1, and log M_t is unimodal in lambda0
(checked numerically over a grid of S, t and s in the tests), so C_t is an interval around S_t / t whose
ends are found by regula falsi (Illinois) in ln lambda0, vectorized across looks (`boundary`).

Planning size: the prior strength s sets the sample size at which C_t is narrowest. It matches the
normal mixture's optimal prior variance at a planned size t0 (Howard et al. 2021, section 3.5):
rho^2 = c / t0 with c = -2 ln(alpha) + ln(1 - 2 ln(alpha)); the Beta(s lambda0, s (1 - lambda0)) prior has
variance lambda0 (1 - lambda0) / (s + 1), so s + 1 = t0 / c (at least s = 1). At t0 the half-width is about
sqrt((c + 1) / c (ln(c + 1) - 2 ln alpha)) / z times the fixed-n normal one (1.55 at alpha = 0.05).

k options: a union bound, alpha / k per option, so all k intervals hold together at every look, except for
an index channel with k = 2 (yes/no, the 1-bit mean), whose two report fractions are one stream and its
mirror image (alpha for both). Each lambda interval maps through the debiasing pi = (lambda - q) / (p - q)
and is clipped to [0, 1], as the fixed-n intervals of `ldp.stats.estimates` are.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..stats.estimates import Estimate
from ..stats.intervals import check_confidence

FloatArray = npt.NDArray[np.float64]
ANYTIME = "anytime"  # the interval's name beside "wilson" and "exact"
CONSTRUCTION = "beta-binomial mixture (Howard et al. 2021), prior centred at each lambda0"
_ITERATIONS = 18  # from the guess, Illinois is within about 1e-14 by then (measured); the outer end is kept
_TINY = 1e-300
_CHUNK = 1 << 18  # looks x options searched at once: bounds the memory of many options and looks
_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


@dataclass(frozen=True)
class Sequence:
    """One row per look: n, and per entry (option, or the mean) the estimate and the interval at that look."""

    n: npt.NDArray[np.int64]
    estimate: FloatArray  # (looks, entries): the unbiased estimate, as the fixed-n one
    ci_low: FloatArray
    ci_high: FloatArray
    confidence: float
    planned: int
    construction: str

    def records(self, entries: slice = slice(None)) -> list[dict[str, Any]]:
        """{"n", "estimate", "ci_low", "ci_high"} per look, lists of the chosen entries."""
        return [{"n": int(self.n[i]), "estimate": self.estimate[i, entries].tolist(),
                 "ci_low": self.ci_low[i, entries].tolist(), "ci_high": self.ci_high[i, entries].tolist()}
                for i in range(self.n.size)]


def lgamma(x: npt.ArrayLike) -> FloatArray:
    """ln Gamma(x) for x > 0, elementwise: Stirling's series from 8 on, shifted by the recurrence below it
    (absolute error below 1e-11).

    >>> [round(float(v), 10) for v in lgamma([0.5, 1.0, 7.25, 1e6])] == [round(math.lgamma(v), 10)
    ...                                                                   for v in (0.5, 1.0, 7.25, 1e6)]
    True
    """
    given = np.asarray(x, dtype=float)
    x = given.reshape(-1)
    small = np.flatnonzero(x < 8.0)
    y = x.copy()
    if small.size:
        y[small] += 8.0
    inv = 1.0 / y
    inv2 = inv * inv
    series = inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0)))
    out = (y - 0.5) * np.log(y) - y + _HALF_LOG_TWO_PI + series
    if small.size:  # ln Gamma(x) = ln Gamma(x + 8) - ln(x (x + 1) ... (x + 7)) below 8
        base = x[small]
        product = base.copy()
        for i in range(1, 8):
            product *= base + i
        out[small] -= np.log(product)
    return np.asarray(out, dtype=float).reshape(given.shape)


def mixture_strength(planned: float, alpha: float) -> float:
    """The prior strength s that makes the sequence narrowest near `planned` reports (module docstring).

    >>> round(mixture_strength(2435, 0.05), 1)
    305.8
    """
    if not planned >= 1:
        raise ValueError("the planned size must be at least 1 report")
    c = -2.0 * math.log(alpha) + math.log(1.0 - 2.0 * math.log(alpha))
    return max(planned / c - 1.0, 1.0)


def log_mixture(lam: FloatArray, successes: FloatArray, trials: FloatArray, strength: float) -> FloatArray:
    """ln M_t(lambda0) of the module docstring, elementwise (0 < lambda0 < 1)."""
    a, b = strength * lam, strength * (1.0 - lam)
    failures = trials - successes
    # ln B(a + S, b + F) - ln B(a, b), with a + b = s fixed
    beta_ratio = (lgamma(a + successes) + lgamma(b + failures) - lgamma(a) - lgamma(b)
                  - lgamma(strength + trials) + math.lgamma(strength))
    return np.asarray(beta_ratio - successes * np.log(lam) - failures * np.log1p(-lam), dtype=float)


def binary_sequence(successes: npt.ArrayLike, trials: npt.ArrayLike, alpha: float,
                    planned: float) -> tuple[FloatArray, FloatArray]:
    """The interval for a report rate lambda at each look: (low, high) arrays, from S_t ones in t reports.

    >>> low, high = binary_sequence([831], [2435], 0.05, 2435)
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.3125, 0.3708)
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must lie in (0, 1)")
    s = np.asarray(successes, dtype=float)
    t = np.asarray(trials, dtype=float)
    if s.shape != t.shape or (t < 1).any() or (s < 0).any() or (s > t).any():
        raise ValueError("each look needs at least one report and between 0 and t successes")
    strength = mixture_strength(planned, alpha)
    threshold = math.log(1.0 / alpha)
    # The rejected lambda0 are [0, low) and (high, 1]. Swapping ones and zeros mirrors lambda0 to 1 - lambda0
    # (the prior is mirrored with it), so high is 1 - the low end of the mirrored counts: one search for both.
    both = np.concatenate([s.reshape(-1), (t - s).reshape(-1)])
    trials = np.concatenate([t.reshape(-1), t.reshape(-1)])
    low = np.concatenate([_low_ends(both[i:i + _CHUNK], trials[i:i + _CHUNK], strength, threshold)
                          for i in range(0, max(both.size, 1), _CHUNK)])
    return low[: s.size].reshape(s.shape), (1.0 - low[s.size:]).reshape(s.shape)


def _low_ends(ones: FloatArray, trials: FloatArray, strength: float, threshold: float) -> FloatArray:
    # M_t(S_t / t) <= 1 < 1 / alpha, so the centre is inside; the low end is searched in u = ln lambda0,
    # where ln M_t grows about linearly towards 0.
    centre = np.clip(ones / trials, _TINY, 1.0 - 1e-15)
    inner, outer = np.log(centre), np.full_like(centre, math.log(_TINY))
    # A first guess 3 normal standard errors out (about where the end is near the planned size) splits the bracket
    guess = np.log(np.maximum(centre - 3.0 * np.sqrt(centre * (1.0 - centre) / trials), _TINY))
    low = np.exp(boundary(lambda u: log_mixture(np.exp(u), ones, trials, strength) - threshold, inner, outer, guess))
    return np.asarray(np.where(ones == 0, 0.0, low), dtype=float)


def boundary(excess: Callable[[FloatArray], FloatArray], inner: FloatArray, outer: FloatArray,
             guess: FloatArray | None = None) -> FloatArray:
    """Where `excess` (< 0 at `inner`, growing on the way to `outer`) crosses 0, elementwise, by the Illinois
    variant of regula falsi; the point returned is always on the outer (rejected) side, so an interval never
    comes out narrower than the set it stands for. `outer` itself is returned where `excess` < 0 there too.
    A `guess` between the two replaces whichever end it is on the side of (the accepted set is an interval)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _illinois(excess, inner, outer, guess)


def _illinois(excess: Callable[[FloatArray], FloatArray], inner: FloatArray, outer: FloatArray,
              guess: FloatArray | None) -> FloatArray:
    g_in, g_out = excess(inner), excess(outer)
    edge = outer.copy()
    inside = g_out < 0.0  # accepted all the way out: the interval reaches the edge
    if guess is not None:
        g = excess(guess)
        out = g >= 0.0
        outer, g_out = np.where(out, guess, outer), np.where(out, g, g_out)
        inner, g_in = np.where(out, inner, guess), np.where(out, g_in, g)
    g_in = np.minimum(g_in, -1e-300)
    side = np.zeros(inner.shape, dtype=np.int8)
    for _ in range(_ITERATIONS):
        step = g_out / (g_out - g_in)
        point = outer + np.where(np.isfinite(step) & (step > 0) & (step < 1), step, 0.5) * (inner - outer)
        g = excess(point)
        out = g >= 0.0
        outer, g_out = np.where(out, point, outer), np.where(out, g, g_out)
        inner, g_in = np.where(out, inner, point), np.where(out, g_in, g)
        # Illinois: an end kept twice in a row has its value halved, so the next point moves off it
        g_in = np.where(out & (side == 1), g_in / 2.0, g_in)
        g_out = np.where(~out & (side == -1), g_out / 2.0, g_out)
        side = np.where(out, 1, -1).astype(np.int8)
    return np.where(inside, edge, outer)


class Channel(Protocol):
    """What a sequence reads of a mechanism (every `ldp.Mechanism` is one): this package sits below the mechanisms,
    whose mean sequences are built here."""

    @property
    def name(self) -> str: ...

    @property
    def k(self) -> int: ...

    @property
    def encoding(self) -> str: ...

    @property
    def estimates_mean(self) -> bool: ...

    @property
    def p(self) -> float: ...

    @property
    def q_other(self) -> float: ...


def streams(mechanism: Channel) -> int:
    """How many binary streams share alpha: 1 for a two-option index channel (one stream and its mirror),
    else k (one per option or bit)."""
    return 1 if mechanism.encoding == "index" and mechanism.k == 2 else mechanism.k


def fraction_sequence(mechanism: Channel, n: npt.ArrayLike, counts: npt.ArrayLike, *, confidence: float = 0.95,
                      planned: int | None = None) -> Sequence:
    """Per-option fractions at each look from cumulative report counts: n (looks,) and counts (looks, k)
    (the reports of option j, or the 1-bits of bit j, among the first n[i]). All k intervals hold together
    at every look with probability >= confidence; `planned` (default: the last look) is where they are narrowest.
    """
    looks, tally, planned, low, high = _debiased_ends(mechanism, n, counts, confidence, planned)
    lam = tally / looks[:, None]
    return Sequence(n=looks, estimate=(lam - mechanism.q_other) / (mechanism.p - mechanism.q_other),
                    ci_low=np.clip(low, 0.0, 1.0), ci_high=np.clip(high, 0.0, 1.0), confidence=confidence,
                    planned=planned, construction=CONSTRUCTION)


def _debiased_ends(mechanism: Channel, n: npt.ArrayLike, counts: npt.ArrayLike, confidence: float,
                   planned: int | None) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int, FloatArray,
                                                 FloatArray]:
    """(looks, counts, planning size, and the intervals' ends mapped through the debiasing, not clipped)."""
    check_confidence(confidence)
    looks = np.asarray(n, dtype=np.int64).reshape(-1)
    tally = np.asarray(counts, dtype=np.int64).reshape(looks.size, mechanism.k)
    if looks.size == 0 or (looks < 1).any():
        raise ValueError("every look needs at least one report")
    planned = int(looks.max()) if planned is None else planned
    alpha = (1.0 - confidence) / streams(mechanism)
    if mechanism.encoding == "index" and mechanism.k == 2:
        low1, high1 = binary_sequence(tally[:, 1], looks, alpha, planned)
        low, high = np.stack([1.0 - high1, low1], axis=1), np.stack([1.0 - low1, high1], axis=1)
    else:
        trials = np.broadcast_to(looks[:, None], tally.shape)
        low, high = binary_sequence(tally, trials, alpha, planned)
    gap, q = mechanism.p - mechanism.q_other, mechanism.q_other
    return looks, tally, planned, (low - q) / gap, (high - q) / gap


def at_last_look(mechanism: Channel, estimate: Estimate, confidence: float, planned: int) -> Estimate:
    """`estimate` (a fixed-n one: the same unbiased estimates and standard errors) with the sequence's intervals
    at its n, unclipped ends included, as `fraction_sequence` gives them at that look. With no reports the
    interval is everything, as the fixed-n one."""
    if estimate.n == 0:
        return dataclasses.replace(estimate, interval=ANYTIME, simultaneous=True)
    _, _, _, low, high = _debiased_ends(mechanism, [estimate.n], [estimate.counts], confidence, planned)
    raw_low, raw_high = low[0], high[0]
    return dataclasses.replace(
        estimate, interval=ANYTIME, simultaneous=True,
        ci_low=_floats(np.clip(raw_low, 0.0, 1.0)), ci_high=_floats(np.clip(raw_high, 0.0, 1.0)),
        ci_low_unclipped=_floats(raw_low), ci_high_unclipped=_floats(raw_high),
        inconsistent=tuple(bool(b) for b in (raw_high < 0.0) | (raw_low > 1.0)))


def _floats(values: FloatArray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


def anytime_respondents_needed(mechanism: Channel, margin: float, confidence: float = 0.95,
                               expected: float | None = None) -> int:
    """Smallest n whose confidence sequence, planned for n, has half-width at most `margin` at n (worst case
    lambda = 1/2 unless `expected`): the interval then holds at every look, not only at n. Found by bisection
    on n with the expected count lambda n (the half-width shrinks with n).

    >>> from ldp import QRandomizedResponse
    >>> from ldp.planning.sizes import respondents_needed
    >>> qrr = QRandomizedResponse("0.5")
    >>> respondents_needed(qrr, 0.05), anytime_respondents_needed(qrr, 0.05)
    (1537, 3682)
    """
    if mechanism.estimates_mean:
        raise ValueError(f"{mechanism.name} estimates a mean: plan it with mean_respondents_needed")
    if not 0.0 < margin < 1.0:
        raise ValueError("margin must lie strictly between 0 and 1")
    check_confidence(confidence)
    if expected is not None and not 0.0 <= expected <= 1.0:
        raise ValueError("expected fraction must lie in [0, 1]")
    gap = mechanism.p - mechanism.q_other
    lam = 0.5 if expected is None else mechanism.q_other + expected * gap
    alpha = (1.0 - confidence) / streams(mechanism)

    def half_width(n: int) -> float:
        low, high = binary_sequence([lam * n], [n], alpha, n)
        return float(high[0] - low[0]) / (2.0 * gap)

    lo, hi = 1, 2
    while half_width(hi) > margin:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if half_width(mid) > margin else (lo, mid)
    return hi

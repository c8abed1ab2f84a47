"""Ordinal (Likert) questions: levels with scores v_j, asked with any one-of-k mechanism (k-RR, q-RR,
the bit flip, SUE, OUE, or directly); the mean score sum_j v_j pi_hat_j.

pi_hat_j = (lambda_hat_j - q) / (p - q) is unbiased, so the mean score is too, with variance
v^T Cov(pi_hat) v = v^T Sigma v / (n (p - q)^2), Sigma the covariance of one report's slots:
* index reports (one option each, multinomial): Sigma_jj = lambda_j (1 - lambda_j), Sigma_jl = -lambda_j lambda_l;
* unary bits (independent given the answer; a respondent has one answer): Sigma_jj = lambda_j (1 - lambda_j) and,
  for j != l, E[b_j b_l] = q (lambda_j + lambda_l) - q^2, so Sigma_jl = -(lambda_j - q)(lambda_l - q).
The plug-in estimate takes lambda = q + (p - q) pi~ with pi~ the projection of pi_hat onto the simplex (a
valid table, so the variance never collapses to 0 when a rare level is not reported at all; plugging in the
observed report rates instead covers as little as 23% at n = 10, eps = 5), times n / (n - 1) as for a sample
variance, and the interval is Student's t with n - 1 degrees of freedom (normal as n grows), clipped to
[min v, max v]: with the normal quantile coverage fell to 91.9% at n = 20 (k-RR, eps = 2, answers at both
ends); with these two it stays above 93.5% down to n = 10 (tests/ldp/means/test_ordinal.py). For unary encodings
sum_j pi_hat_j is not exactly 1, so shifting every score by c moves the estimate by c sum_j pi_hat_j; it
stays unbiased.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import Mechanism
from ..stats.estimates import MeanEstimate, project_to_simplex
from ..stats.intervals import check_confidence, t_value


def _scores(mechanism: Mechanism, scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    if not mechanism.one_of_k:
        raise ValueError(f"a mean score needs a one-of-k mechanism (k-RR, q-RR, bit flip, SUE, OUE, direct), "
                         f"not {mechanism.name}")
    values = np.asarray(scores, dtype=float)
    if values.shape != (mechanism.k,) or not np.isfinite(values).all():
        raise ValueError(f"scores must be {mechanism.k} finite numbers, one per level")
    return values


def slot_covariance(mechanism: Mechanism, pi: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Sigma: the covariance of one report's k slots when the answers have fractions pi.

    >>> from ldp import Direct
    >>> slot_covariance(Direct(2), [0.5, 0.5]).tolist()
    [[0.25, -0.25], [-0.25, 0.25]]
    """
    p, q = mechanism.p, mechanism.q_other
    lam = q + (p - q) * np.asarray(pi, dtype=float)
    if mechanism.unary:
        shifted = lam - q
        sigma = -np.outer(shifted, shifted)
    else:
        sigma = -np.outer(lam, lam)
    np.fill_diagonal(sigma, lam * (1.0 - lam))
    return sigma


def mean_score_variance(mechanism: Mechanism, pi: npt.ArrayLike, n: int, scores: npt.ArrayLike) -> float:
    """Var(sum_j v_j pi_hat_j) = v^T Sigma v / (n (p - q)^2) at true level fractions pi.

    >>> from ldp import Direct
    >>> mean_score_variance(Direct(3), [0.5, 0.0, 0.5], 100, [1, 2, 3])
    0.01
    """
    v = _scores(mechanism, scores)
    gap = mechanism.p - mechanism.q_other
    return max(0.0, float(v @ slot_covariance(mechanism, pi) @ v)) / (n * gap * gap)


def mean_score(mechanism: Mechanism, counts: npt.ArrayLike, n: int, scores: npt.ArrayLike,
               confidence: float = 0.95) -> MeanEstimate:
    """The mean score from per-level counts (reports of each level, or 1-bits per level for unary) of n.

    >>> from ldp import KaryRR
    >>> m = KaryRR(2.0, 3)
    >>> e = mean_score(m, [600, 250, 150], 1000, [1, 2, 3])
    >>> round(e.mean, 4), e.ci_low < e.mean < e.ci_high
    (1.3387, True)
    """
    v = _scores(mechanism, scores)
    check_confidence(confidence)
    estimate = mechanism.estimate(counts, n, confidence=confidence)
    low, high = float(v.min()), float(v.max())
    if n == 0:
        return MeanEstimate(math.nan, math.nan, low, high, confidence, 0)
    pi_hat = np.asarray(estimate.estimate)
    mean = float(v @ pi_hat)
    if n == 1:
        return MeanEstimate(mean, math.nan, low, high, confidence, 1)
    std_error = math.sqrt(mean_score_variance(mechanism, project_to_simplex(pi_hat), n, v) * n / (n - 1))
    half = t_value(confidence, n - 1) * std_error
    return MeanEstimate(mean, std_error, min(max(mean - half, low), high), max(min(mean + half, high), low),
                        confidence, n)


def scored_mean(mechanism: Mechanism, counts: npt.ArrayLike, n: int, scores: Sequence[float | None],
                confidence: float = 0.95) -> MeanEstimate | None:
    """The mean score over the levels with a score (None: a level left out, such as "Prefer not to say");
    None without a scored level. With every level scored this is `mean_score`. Otherwise it is the mean
    among the respondents who chose a scored level, the ratio R = A / B with A = sum_S v_j pi_hat_j and
    B = sum_S pi_hat_j (S the scored levels); by the delta method R_hat - R ~ sum_S (v_j - R)(pi_hat_j - pi_j) / B,
    so its standard error is `mean_score`'s for the linear scores w_j = v_j - R_hat on S (0 elsewhere),
    divided by B_hat, with the same Student t interval clipped to the scored levels' range.

    >>> from ldp import Direct
    >>> e = scored_mean(Direct(3), [50, 30, 20], 100, [1.0, 3.0, None])
    >>> round(e.mean, 4), e.ci_low < e.mean < e.ci_high
    (1.75, True)
    """
    scored = [score is not None for score in scores]
    if not any(scored):
        return None
    values = [float(score) if score is not None else 0.0 for score in scores]
    if all(scored):
        return mean_score(mechanism, counts, n, values, confidence)
    kept = [v for v, on in zip(values, scored, strict=True) if on]
    low, high = min(kept), max(kept)
    if n == 0:
        return MeanEstimate(math.nan, math.nan, low, high, confidence, 0)
    pi_hat = np.asarray(mechanism.estimate(counts, n).estimate)
    share = float(pi_hat[np.asarray(scored)].sum())
    if not share > 0:  # nobody (as far as the reports tell) chose a scored level
        return MeanEstimate(math.nan, math.nan, low, high, confidence, n)
    ratio = float(np.asarray(values) @ pi_hat) / share
    if n == 1:  # no spread to judge from, as mean_score says
        return MeanEstimate(ratio, math.nan, low, high, confidence, 1)
    linear = [v - ratio if on else 0.0 for v, on in zip(values, scored, strict=True)]
    std_error = mean_score(mechanism, counts, n, linear, confidence).std_error / share
    half = t_value(confidence, n - 1) * std_error
    return MeanEstimate(ratio, std_error, min(max(ratio - half, low), high), max(min(ratio + half, high), low),
                        confidence, n)

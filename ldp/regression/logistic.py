"""Logistic regression of a randomized yes/no report on covariates, through the mechanism's channel.

A binary channel (q-RR, bit flip, option j of a k-option channel: p = P(report 1 | true 1),
q = P(report 1 | true 0)) turns the model P(true = 1 | x) = s(x'b), s the logistic function, into

    P_i = P(y_i = 1 | x_i) = q + (p - q) s(x_i'b)

(van den Hout and van der Heijden 2002; Blair, Imai and Zhou 2015). With eta = x'b, s' = s (1 - s),
dP = (p - q) s' and d2P = (p - q) s' (1 - 2s):

    l(b)  = sum_i w_i [y_i log P_i + (1 - y_i) log(1 - P_i)]
    score = sum_i w_i g_i x_i,   g_i = (y_i - P_i) / (P_i (1 - P_i)) dP_i
    -d2l  = sum_i w_i x_i x_i' [(y_i / P_i^2 + (1 - y_i) / (1 - P_i)^2) dP_i^2 - (y_i - P_i) / (P_i (1 - P_i)) d2P_i]

(w_i = 1 unless weighted). Standard errors: `observed` (default) inverts the observed information
-d2l at the maximum; `opg` inverts the outer product of scores sum g_i^2 x_i x_i' (what R's rr
prints). A weighted fit maximizes the pseudo-likelihood sum w_i l_i and takes the sandwich
A^-1 B A^-1, A the weighted observed information and B = n / (n - 1) sum w_i^2 r_i r_i', r_i the
residuals of the scores g_i x_i on the design's margins (`Raked.residuals`: the raking is accounted for).

The fit: Newton's method from b = 0 (the Fisher information where the observed one is not positive
definite: the likelihood is not concave in general), halving the step until the likelihood rises;
then again from a second start, the logistic fit of the debiased values v_i = (y_i - q) / (p - q)
(which solves sum w_i x_i (v_i - s(x_i'b)) = 0, a concave problem, E[v | x] = s(x'b)); the higher
maximum is kept. Where the maximum is at infinity (fitted probabilities of the true answer at 0 or 1:
separation, or a report rate outside [q, p]) or Newton's method does not settle, the fit says so
in `messages`.

Each term's Wald test: z = b / SE, two-sided p = 2 Phi(-|z|), with the standard error of the kind chosen (observed
information by default; the outer product of scores is what R's rr prints, and is preferred only where the model's
second derivatives are in doubt: both estimate the same variance under the model, the observed one with less noise).
The fit works on the columns centred and scaled (`ldp.regression.scaling`: a covariate on a scale of 10^4 and its
square would
otherwise make the rank check and Newton's steps lose the intercept); the figures are mapped back to the original
scale. Odds ratios are exp(b) with the interval exp(b +- z SE). The likelihood-ratio test compares with
the intercept-only model, whose maximum is closed-form: P = ybar clipped to [q, p],
LR = 2 (l - l0) ~ chi-square(covariates) (unweighted fits only: a pseudo-likelihood ratio has no
chi-square law; weighted fits give the Wald test b' V^-1 b on the slopes instead).

**Grouped rows** (`counts`): a row may stand for several respondents with the same covariates and the
same report (and, weighted, the same weight and margin categories: `Raked.counts`). The likelihood,
its derivatives, the outer product of scores and the sandwich are sums over respondents, so each is the
sum over rows of count times the row's term: the same fit as the rows written out, exactly (up to the
order the sums are added in), at the cost of the distinct rows. A survey's single-choice covariates
take few distinct values, so a model of 10^6 responses is a fit of a few thousand rows.

The likelihood and its derivatives: `ldp.regression.likelihood`; finding its maximum:
`ldp.regression.logistic_maximum`; power:
`ldp.regression.logistic_power`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..joint.association import chi2_sf
from ..stats.intervals import check_confidence, z_value
from ..stats.row_counts import row_counts, same_counts
from ..weighting.raking import Raked
from .likelihood import Model, Point, gram
from .logistic_maximum import DIVERGED, newton, starts
from .scaling import Scaled, scaled

FloatArray = npt.NDArray[np.float64]
SE_KINDS = ("observed", "opg")


@dataclass(frozen=True)
class LogisticFit:
    """A fitted model: one entry per term in every tuple; `covariance` is the one the SEs come from."""

    terms: tuple[str, ...]
    estimate: tuple[float, ...]
    std_error: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    z: tuple[float, ...]  # estimate / std_error
    p_values: tuple[float, ...]  # each term's two-sided Wald test, 2 Phi(-|z|)
    odds_ratio: tuple[float, ...]
    odds_ratio_low: tuple[float, ...]
    odds_ratio_high: tuple[float, ...]
    n: int
    log_likelihood: float
    null_log_likelihood: float
    test: str  # "likelihood ratio" (unweighted) or "wald" (weighted)
    statistic: float
    df: int
    p_value: float
    se: str  # "observed", "opg" or "sandwich"
    confidence: float
    converged: bool
    iterations: int
    start: str  # "zero" or "debiased": where the kept maximum was reached from
    covariance: FloatArray = field(repr=False)
    covariance_observed: FloatArray = field(repr=False)
    covariance_opg: FloatArray | None = field(repr=False)
    messages: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in (
            "terms", "estimate", "std_error", "ci_low", "ci_high", "z", "p_values", "odds_ratio", "odds_ratio_low",
            "odds_ratio_high", "n", "log_likelihood", "null_log_likelihood", "test", "statistic", "df", "p_value", "se",
            "confidence", "converged", "iterations", "start", "messages")}
        return {key: list(value) if isinstance(value, tuple) else value for key, value in data.items()}


def fit(y: npt.ArrayLike, x: npt.ArrayLike, p: float, q: float, *, terms: Sequence[str] | None = None,
        design: Raked | None = None, se: str = "observed", confidence: float = 0.95,
        counts: npt.ArrayLike | None = None) -> LogisticFit:
    """Maximum likelihood for P(y = 1 | x) = q + (p - q) s(x'b); `x` includes the intercept column; `counts`:
    the respondents each row stands for (a design's own `counts` must be the same).

    >>> rng = np.random.default_rng(3)
    >>> age = rng.normal(size=4000)
    >>> truth = rng.random(4000) < 1 / (1 + np.exp(-(-0.5 + age)))
    >>> y = np.where(rng.random(4000) < 0.5, truth, rng.random(4000) < 0.5)  # q-RR, q = 0.5
    >>> found = fit(y, np.column_stack([np.ones(4000), age]), 0.75, 0.25, terms=["(Intercept)", "age"])
    >>> [round(b, 2) for b in found.estimate], found.converged, found.test
    ([-0.46, 1.01], True, 'likelihood ratio')
    """
    check_confidence(confidence)
    if se not in SE_KINDS:
        raise ValueError(f"se must be one of {SE_KINDS}")
    yy = np.asarray(y, dtype=float).reshape(-1)
    xx = np.asarray(x, dtype=float)
    if xx.ndim != 2 or xx.shape[0] != yy.size:
        raise ValueError("x must have one row per report")
    if not np.isin(yy, (0.0, 1.0)).all():
        raise ValueError("the reports must be 0 or 1")
    if not 0.0 <= q < p <= 1.0:
        raise ValueError("the channel must have 0 <= q < p <= 1")
    names = tuple(terms) if terms is not None else tuple(f"x{j}" for j in range(xx.shape[1]))
    if len(names) != xx.shape[1]:
        raise ValueError("one term name per column of x")
    m = row_counts(counts, yy.size)
    if design is not None and (design.weights.size != yy.size or not same_counts(design.counts, m)):
        raise ValueError("the design must have one weight per report (and the same counts)")
    scale = scaled(xx, m)  # the fit's columns centred and scaled (ldp.regression.scaling); the results mapped back
    zz = scale.z
    n = yy.size if m is None else float(m.sum())
    if n <= xx.shape[1] or np.linalg.matrix_rank(zz.T @ zz) < xx.shape[1]:
        raise ValueError("the covariates are collinear or constant (or there are fewer reports than terms)")
    weights = m if design is None else design.mass
    model = Model(yy, zz, p, q, weights)
    tries = [(name, newton(model, b)) for name, b in starts(yy, zz, p, q, weights)]
    # The higher maximum; a start that settled beats one that did not.
    start, best = max(tries, key=lambda item: (item[1][2], item[1][0].loglik))
    return _result(model, best, start, names, design, se, confidence, m, scale)


def _result(model: Model, found: tuple[Point, int, bool], start: str, names: tuple[str, ...],
            design: Raked | None, se: str, confidence: float, counts: FloatArray | None,
            scale: Scaled) -> LogisticFit:
    """The fit's figures on the original scale: the coefficients and covariances of the scaled columns mapped
    back (the likelihood and the fitted values are the same either way)."""
    point, iterations, converged = found
    messages = []
    if not converged:
        messages.append(f"the fit did not converge in {iterations} Newton steps; the estimates are not a maximum")
    eta = model.x @ point.b
    if np.abs(eta).max() > DIVERGED:
        messages.append("the data separate: the likelihood keeps rising as some coefficients go to infinity "
                        "(fitted probabilities of the true answer at 0 or 1); the estimates and standard errors "
                        "are not meaningful")
    observed = _inverse(point.observed)
    if observed is None:
        messages.append("the observed information is not positive definite at the maximum: no standard errors")
        observed = np.full_like(point.observed, math.nan)
    opg = None
    if design is None:
        opg = _inverse(gram(model.x, point.score**2 if counts is None else counts * point.score**2))
        covariance = observed if se == "observed" else opg
        kind = se
    else:
        residual = design.residuals(point.score[:, None] * model.x)
        n = design.n
        meat = n / (n - 1) * gram(residual, design.weights * design.mass)
        covariance = observed @ meat @ observed
        kind = "sandwich"
    if covariance is None:
        covariance = np.full_like(point.observed, math.nan)
    b, covariance, observed = scale.coefficients(point.b), scale.covariance(covariance), scale.covariance(observed)
    opg = None if opg is None else scale.covariance(opg)
    with np.errstate(invalid="ignore"):
        std = np.sqrt(np.diag(covariance))
        z_stat = b / std
    z = z_value(confidence)
    null = _null_loglik(model)
    slopes = len(names) - 1
    if design is None:
        test, statistic = "likelihood ratio", max(0.0, 2.0 * (point.loglik - null))
    else:
        test, statistic = "wald", _wald(b[1:], covariance[1:, 1:])
    with np.errstate(over="ignore"):  # odds ratios of a separated fit: infinite
        odds = np.exp(np.stack([b, b - z * std, b + z * std]))
    return LogisticFit(
        terms=names, estimate=_floats(b), std_error=_floats(std), ci_low=_floats(b - z * std),
        ci_high=_floats(b + z * std), z=_floats(z_stat), p_values=tuple(two_sided(v) for v in z_stat),
        odds_ratio=_floats(odds[0]), odds_ratio_low=_floats(odds[1]),
        odds_ratio_high=_floats(odds[2]), n=int(model.y.size if counts is None else counts.sum()),
        log_likelihood=point.loglik,
        null_log_likelihood=null, test=test, statistic=statistic, df=slopes,
        p_value=chi2_sf(statistic, slopes) if math.isfinite(statistic) else math.nan, se=kind,
        confidence=confidence, converged=converged and not messages, iterations=iterations, start=start,
        covariance=covariance, covariance_observed=observed, covariance_opg=opg, messages=tuple(messages))


def _null_loglik(model: Model) -> float:
    """The intercept-only maximum: P = the (weighted) report fraction, clipped to [q, p] (the reachable rates)."""
    w = np.ones_like(model.y) if model.w is None else model.w
    rate = float(np.clip(w @ model.y / w.sum(), model.q, model.p))
    ones = float(w @ model.y)
    zeros = float(w.sum()) - ones
    return (ones * math.log(rate) if ones > 0 else 0.0) + (zeros * math.log1p(-rate) if zeros > 0 else 0.0)


def _wald(b: FloatArray, covariance: FloatArray) -> float:
    if b.size == 0:
        return 0.0
    try:
        return float(b @ np.linalg.solve(covariance, b))
    except np.linalg.LinAlgError:
        return math.nan


def _inverse(matrix: FloatArray) -> FloatArray | None:
    """The inverse of a positive definite matrix; None if it is not one, or is singular to working precision
    (Cholesky can succeed on a nearly singular matrix whose inverse then fails: separated data)."""
    try:
        np.linalg.cholesky(matrix)
        return np.asarray(np.linalg.inv(matrix), dtype=float)
    except np.linalg.LinAlgError:
        return None


def two_sided(z: float) -> float:
    """2 Phi(-|z|), the two-sided normal tail, accurate far out (erfc, not 1 - erf); NaN stays NaN."""
    return math.erfc(abs(float(z)) / math.sqrt(2.0))


def _floats(values: FloatArray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)

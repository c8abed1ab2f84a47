"""Fitting a model: logistic regression through the exact channel by Newton's method, least squares of the
unbiased values; standard errors (observed, OPG, HC1 or the sandwich through the raking) and tests."""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

import numpy as np

from .formulas import scaled_columns
from .intervals import t_value
from .shapes import Array, Found
from .tails import chi2_sf, t_two_sided, two_sided

NEWTON_STEPS, HALVINGS = 100, 60


DIVERGED = 30.0  # |x'b| beyond this: the fitted P(true answer) is within 1e-13 of 0 or 1, the maximum at infinity


def channel_likelihood(b: Array, y: Array, x: Array, p: float, q: float,
                       w: Array) -> tuple[float, Array, Array, Array, Array]:
    """At b: the (weighted) log-likelihood of P_i = q + (p - q) s(x_i'b), each row's score g_i (the gradient is
    sum w_i g_i x_i), the observed information -d2l and the Fisher information (this script's header)."""
    eta = x @ b
    e = np.exp(-np.clip(eta, -700.0, 700.0))
    s = 1.0 / (1.0 + e)
    s_rest = e * s  # 1 - s, accurate where s is near 1
    prob = q + (p - q) * s
    rest = 1.0 - prob
    with np.errstate(divide="ignore"):  # P at 0 or 1: -inf, refused by the step
        loglik = float(w @ np.where(y > 0, np.log(prob), np.log1p(-prob)))
    dp = (p - q) * s * s_rest
    g = (y - prob) / (prob * rest) * dp
    curvature = np.where(y > 0, 1.0 / prob ** 2, 1.0 / rest ** 2) * dp * dp - g * (s_rest - s)
    observed = (x * (w * curvature)[:, None]).T @ x
    fisher = (x * (w * dp * dp / (prob * rest))[:, None]).T @ x
    return loglik, g, x.T @ (w * g), observed, fisher


def newton(b: Array, y: Array, x: Array, p: float, q: float, w: Array) -> tuple[Array, float, bool]:
    """Newton's method from b (a Fisher-scoring step where the observed information is not positive definite),
    the step halved until the likelihood rises; (b, log-likelihood, converged)."""
    loglik, _, gradient, observed, fisher = channel_likelihood(b, y, x, p, q, w)
    for _ in range(NEWTON_STEPS):
        try:
            step = np.linalg.solve(observed, gradient) if positive_definite(observed) else np.linalg.solve(
                fisher, gradient)
        except np.linalg.LinAlgError:
            return b, loglik, False
        decrement, scale = float(gradient @ step), max(1.0, abs(loglik))
        if decrement < 1e-16 * scale or np.abs(step).max() < 1e-13:  # within about 1e-8 standard errors
            return b, loglik, True
        t = 1.0
        for _ in range(HALVINGS):
            candidate = b + t * step
            found = channel_likelihood(candidate, y, x, p, q, w)
            if np.isfinite(found[0]) and found[0] >= loglik - 1e-13 * scale:
                break
            t /= 2.0
        else:
            return b, loglik, decrement < 1e-10 * scale
        b, (loglik, _, gradient, observed, fisher) = candidate, found
    return b, loglik, False


def debiased_start(y: Array, x: Array, p: float, q: float, w: Array) -> Array | None:
    """The logistic fit of the debiased values v = (y - q) / (p - q) (E[v | x] = s(x'b), a concave problem): a
    second start for Newton's method; None where it runs off to infinity."""
    v, b = (y - q) / (p - q), np.zeros(x.shape[1])
    with np.errstate(all="ignore"):  # a start that runs off to infinity is dropped, not warned about
        for _ in range(NEWTON_STEPS):
            s = 1.0 / (1.0 + np.exp(-(x @ b)))
            try:
                step = np.linalg.solve((x * (w * s * (1.0 - s))[:, None]).T @ x, x.T @ (w * (v - s)))
            except np.linalg.LinAlgError:
                return None
            b = b + step
            if not np.all(np.isfinite(b)) or np.abs(step).max() < 1e-10:
                break
    return b if np.all(np.isfinite(b)) and np.abs(x @ b).max() < DIVERGED else None


def positive_definite(matrix: Array) -> bool:
    try:
        np.linalg.cholesky(matrix)
        return True
    except np.linalg.LinAlgError:
        return False


def logistic_model(y: Array, x: Array, p: float, q: float, w: Array, residuals: Callable[[Array], Array] | None,
                   se: str, confidence: float) -> Found:
    """Maximum likelihood through the channel, from b = 0 and from the debiased fit (the likelihood need not be
    concave: the higher maximum is kept); standard errors, intervals, odds ratios and the tests. The fit is of the
    scaled columns (scaled_columns), its coefficients and covariance mapped back."""
    original, (x, back) = x, scaled_columns(x)
    starts = [np.zeros(x.shape[1])]
    second = debiased_start(y, x, p, q, w)
    if second is not None:
        starts.append(second)
    tries = [newton(b, y, x, p, q, w) for b in starts]
    b, loglik, converged = max(tries, key=lambda found: (found[2], found[1]))
    if np.abs(x @ b).max() > DIVERGED:
        raise ValueError("the data separate: the likelihood keeps rising as some coefficients grow without bound "
                         "(in some group the reports are all or almost all one way beyond what the randomization "
                         "allows); merge or leave out the covariates with few respondents")
    _, g, _, observed, _ = channel_likelihood(b, y, x, p, q, w)
    if not converged or not positive_definite(observed):
        raise ValueError("the fit did not converge to a maximum with standard errors; try fewer covariates")
    inverse = np.linalg.inv(observed)
    if residuals is not None:  # the sandwich through the raking
        r = residuals(g[:, None] * x)
        n = y.size
        covariance, kind = inverse @ (n / (n - 1) * (r * (w ** 2)[:, None]).T @ r) @ inverse, "sandwich"
    elif se == "opg":
        covariance, kind = np.linalg.inv((x * (g ** 2)[:, None]).T @ x), "opg"
    else:
        covariance, kind = inverse, "observed"
    b, covariance, x = back @ b, back @ covariance @ back.T, original
    std_error = np.sqrt(np.diag(covariance))
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    # The intercept-only maximum, closed-form: P = the (weighted) share of reports of 1, within [q, p].
    ones, everyone = float(w @ y), float(w.sum())
    rate = min(max(ones / everyone, q), p)
    null = (ones * math.log(rate) if ones > 0 else 0.0) + ((everyone - ones) * math.log1p(-rate)
                                                           if everyone > ones else 0.0)
    df = x.shape[1] - 1
    if residuals is None:
        test, statistic = "likelihood ratio", max(0.0, 2.0 * (loglik - null))
    else:  # a pseudo-likelihood ratio has no chi-square law: the Wald test of the slopes
        slopes = b[1:]
        test, statistic = "wald", float(slopes @ np.linalg.solve(covariance[1:, 1:], slopes)) if df else 0.0
    low, high = b - z * std_error, b + z * std_error
    with np.errstate(over="ignore"):
        odds = [np.exp(v).tolist() for v in (b, low, high)]
    return {"estimate": b.tolist(), "std_error": std_error.tolist(), "ci_low": low.tolist(),
            "ci_high": high.tolist(), "z": (b / std_error).tolist(), "p_value": two_sided(b / std_error),
            "odds_ratio": odds[0], "odds_ratio_low": odds[1], "odds_ratio_high": odds[2],
            "log_likelihood": loglik, "null_log_likelihood": null,
            "test": {"name": test, "statistic": statistic, "df": df, "p_value": chi2_sf(statistic, df)},
            "se": kind}


def linear_model(v: Array, x: Array, w: Array, residuals: Callable[[Array], Array] | None, confidence: float) -> Found:
    """Least squares of the unbiased values (weighted: by the weights), HC1 standard errors (weighted: the sandwich
    through the raking), Student t intervals and tests with n - k degrees of freedom; of the scaled columns."""
    n, k = x.shape
    x, back = scaled_columns(x)
    bread = np.linalg.inv((x * w[:, None]).T @ x)
    b = bread @ (x.T @ (w * v))
    e = v - x @ b
    if residuals is None:
        meat, kind = (x * (e ** 2)[:, None]).T @ x * (n / (n - k)), "HC1"
    else:
        r = residuals(e[:, None] * x)
        meat, kind = (r * (w ** 2)[:, None]).T @ r * (n / (n - 1)), "sandwich"
    b, covariance = back @ b, back @ bread @ meat @ bread @ back.T
    std_error = np.sqrt(np.diag(covariance))
    t = t_value(confidence, n - k)
    none = [None] * k
    return {"estimate": b.tolist(), "std_error": std_error.tolist(), "ci_low": (b - t * std_error).tolist(),
            "ci_high": (b + t * std_error).tolist(), "z": (b / std_error).tolist(),
            "p_value": t_two_sided((b / std_error).tolist(), n - k), "odds_ratio": none, "odds_ratio_low": none,
            "odds_ratio_high": none, "log_likelihood": None, "null_log_likelihood": None, "test": None, "se": kind}

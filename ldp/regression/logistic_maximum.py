"""The channel logistic likelihood's maximum (`ldp.regression.logistic.fit`): Newton steps with step halving, where the
observed
information is positive definite, else Fisher scoring, from two starts, b = 0 and the debiased values' own logistic
fit, keeping the higher maximum (`ldp.regression.logistic` chooses). A large survey's starts are first taken to their
maxima on
SUBSAMPLE evenly spaced rows."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .likelihood import Model, Point, gram

FloatArray = npt.NDArray[np.float64]
MAX_ITERATIONS = 100
HALVINGS = 60
SUBSAMPLE = 100_000  # rows on which a large survey's starts are first taken to their maxima
DIVERGED = 30.0  # |x'b| beyond this: s is within 1e-13 of 0 or 1, the maximum is at infinity


def starts(y: FloatArray, x: FloatArray, p: float, q: float, w: FloatArray | None) -> list[tuple[str, FloatArray]]:
    """b = 0 and the debiased values' logistic fit. Above 2 SUBSAMPLE rows both starts are first taken to
    their maxima on SUBSAMPLE evenly spaced rows (the same modes, up to O(1/sqrt(SUBSAMPLE))), and the full
    data's Newton runs from each distinct one, which saves most of the steps on a large survey."""
    zero = np.zeros(x.shape[1])
    debiased = debiased_start(y, x, p, q, w)
    if y.size <= 2 * SUBSAMPLE:
        return [("zero", zero)] + ([] if debiased is None else [("debiased", debiased)])
    rows = np.linspace(0, y.size - 1, SUBSAMPLE).astype(np.int64)
    part = Model(y[rows], x[rows], p, q, None if w is None else w[rows])
    found = [("zero", newton(part, zero)[0].b)]
    if debiased is not None:
        other = newton(part, debiased)[0].b
        if np.abs(other - found[0][1]).max() > 1e-3 * (1.0 + np.abs(other).max()):
            found.append(("debiased", other))
    return found


def newton(model: Model, b: FloatArray) -> tuple[Point, int, bool]:
    point = model.point(b)
    for iteration in range(1, MAX_ITERATIONS + 1):
        step = direction(point)
        decrement = float(point.gradient @ step)
        scale = max(1.0, abs(point.loglik))
        # Twice the distance to the maximum is below 1e-16 of the likelihood: the coefficients are within
        # about 1e-8 standard errors of it (further steps only meet the sum's rounding).
        if decrement < 1e-16 * scale or np.abs(step).max() < 1e-13:
            return point, iteration, True
        t = 1.0
        for _ in range(HALVINGS):
            candidate = point.b + t * step
            value = model.loglik(candidate)
            if np.isfinite(value) and value >= point.loglik - 1e-13 * scale:
                break
            t /= 2.0
        else:
            return point, iteration, decrement < 1e-10 * scale  # no rise left: settled only if close
        point = model.point(candidate)
    return point, MAX_ITERATIONS, False


def direction(point: Point) -> FloatArray:
    """The Newton step where the observed information is positive definite, else the Fisher-scoring step."""
    for matrix in (point.observed, None):
        matrix = point.fisher() if matrix is None else matrix
        try:
            factor = np.linalg.cholesky(matrix)
        except np.linalg.LinAlgError:
            continue
        return np.asarray(np.linalg.solve(factor.T, np.linalg.solve(factor, point.gradient)), dtype=float)
    return np.asarray(np.linalg.lstsq(point.fisher(), point.gradient, rcond=None)[0], dtype=float)


def debiased_start(y: FloatArray, x: FloatArray, p: float, q: float, w: FloatArray | None) -> FloatArray | None:
    """The root of sum w_i x_i (v_i - s(x_i'b)) = 0 (maximizing the concave sum w [v eta - log(1 + e^eta)]),
    or None where it runs off to infinity."""
    if y.size > 2 * SUBSAMPLE:  # a start: the evenly spaced rows will do
        rows = np.linspace(0, y.size - 1, SUBSAMPLE).astype(np.int64)
        y, x, w = y[rows], x[rows], None if w is None else w[rows]
    v = (y - q) / (p - q)
    weights = np.ones_like(y) if w is None else w
    b = np.zeros(x.shape[1])

    def objective(beta: FloatArray) -> float:
        eta = x @ beta
        return float(weights @ (v * eta - np.logaddexp(0.0, eta)))

    value = objective(b)
    with np.errstate(all="ignore"):  # a start that runs off to infinity is dropped, not warned about
        for _ in range(MAX_ITERATIONS):
            s = logistic(x @ b)
            gradient = x.T @ (weights * (v - s))
            try:
                step = np.linalg.solve(gram(x, weights * s * (1.0 - s)), gradient)
            except np.linalg.LinAlgError:
                return None
            if not np.all(np.isfinite(step)):
                return None
            if float(gradient @ step) < 1e-12 * max(1.0, abs(value)):  # close enough for a start
                return b if np.abs(x @ b).max() < DIVERGED else None
            t = 1.0
            for _ in range(HALVINGS):
                candidate = b + t * step
                new = objective(candidate)
                if np.isfinite(new) and new >= value:
                    break
                t /= 2.0
            else:
                return b if np.abs(x @ b).max() < DIVERGED else None
            b, value = candidate, new
    return None


def logistic(eta: FloatArray) -> FloatArray:
    return np.asarray(np.exp(-np.logaddexp(0.0, -eta)), dtype=float)

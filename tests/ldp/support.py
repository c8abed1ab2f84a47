"""Helpers shared by the ldp tests: mechanism grids, simulation through the real code path,
and exact arithmetic for comparing epsilons.

Nothing here computes an expected result from ldp's own formulas: expectations are built
from the design's closed forms, scipy, or exact rational/decimal arithmetic.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

import ldp

UNARY = frozenset({"sue", "oue"})


def is_unary(mechanism) -> bool:
    return mechanism.name in UNARY


def qrr_near(epsilon: float, digits: int = 4) -> ldp.QRandomizedResponse:
    """q-RR with a decimal q (as a researcher would type it) whose epsilon is about `epsilon`."""
    return ldp.QRandomizedResponse(f"{math.tanh(epsilon / 2.0):.{digits}f}")


def coverage_grid_mechanisms(epsilon: float) -> list:
    """Every mechanism at one epsilon: qrr, bitflip, krr with several k, sue, oue."""
    return [
        qrr_near(epsilon),
        ldp.BitFlip(epsilon),
        ldp.KaryRR(epsilon, 3),
        ldp.KaryRR(epsilon, 10),
        ldp.KaryRR(epsilon, 50),
        ldp.SymmetricUnary(epsilon, 4),
        ldp.OptimizedUnary(epsilon, 4),
    ]


def describe(mechanism) -> str:
    k = "" if mechanism.name in ldp.YES_NO else f", k={mechanism.k}"
    return f"{mechanism.name}(eps={mechanism.epsilon:.4g}{k})"


def iid_answers(rng: np.random.Generator, pi, size) -> np.ndarray:
    """True answers drawn independently from the population fractions pi.

    With i.i.d. answers the report of option j is a Bernoulli(lambda_j) draw, so the count
    is Binomial(n, lambda_j) and Var(pi_hat_j) is exactly lambda_j (1 - lambda_j) / (n (p - q)^2).
    """
    pi = np.asarray(pi, dtype=float)
    return rng.choice(pi.size, size=size, p=pi)


def simulate_counts(mechanism, pi, n: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """(reps, k) counts through randomize() and counts(), one survey of n respondents per row."""
    answers = iid_answers(rng, pi, reps * n)
    reports = mechanism.randomize(answers, rng)
    shape = (reps, n, mechanism.k) if is_unary(mechanism) else (reps, n)
    reports = reports.reshape(shape)
    return np.array([mechanism.counts(rep) for rep in reports])


def report_rates(mechanism, pi) -> np.ndarray:
    """lambda_j = q + pi_j (p - q), from the design's channel definition."""
    return mechanism.q_other + np.asarray(pi, dtype=float) * (mechanism.p - mechanism.q_other)


def exact_exp(epsilon: float, prec: int = 60) -> Decimal:
    """e^epsilon of the float epsilon, to `prec` significant digits."""
    with localcontext() as ctx:
        ctx.prec = prec
        return Decimal(epsilon).exp()


def exact_log(ratio: Fraction, prec: int = 60) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = prec
        return (Decimal(ratio.numerator) / Decimal(ratio.denominator)).ln()


def fraction_le_exp(ratio: Fraction, epsilon: float) -> bool:
    """ratio <= e^epsilon, decided with 60-digit arithmetic.

    e^eps is irrational for a (rational, nonzero) float eps, so it is never equal to the
    rational `ratio`, and 60 digits separate them unless they agree to ~1e-60.
    """
    with localcontext() as ctx:
        ctx.prec = 60
        return Decimal(ratio.numerator) / Decimal(ratio.denominator) <= exact_exp(epsilon)


def sampler_odds_ratio(sampler: dict) -> Fraction:
    """The likelihood ratio bounding the channel, from the sampler integers alone.

    grr: P(report y | truth y) / P(report y | truth x) = keep / other.
    unary: worst case over a bit flipped both ways, a1 (M - a0) / (a0 (M - a1)).
    """
    m = sampler["modulus"]
    if sampler["kind"] == "grr":
        return Fraction(sampler["keep"], sampler["other"])
    a1, a0 = sampler["one_if_true"], sampler["one_if_false"]
    return Fraction(a1 * (m - a0), a0 * (m - a1))


def wilson_cc_by_root_finding(x: int, n: int, confidence: float) -> tuple[float, float]:
    """Continuity-corrected score interval from its definition (Newcombe 1998, method 4):
    the pi with |x/n - pi| - 1/(2n) = z sqrt(pi (1 - pi) / n) on each side, L = 0 at x = 0
    and U = 1 at x = n. Solved numerically with scipy, not from the closed form."""
    from scipy import optimize, stats

    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    low, high = 0.0, 1.0
    if x > 0:
        shifted = (x - 0.5) / n
        low = optimize.brentq(lambda t: shifted - t - z * math.sqrt(t * (1 - t) / n), 0.0, shifted,
                              xtol=1e-15, rtol=1e-14)
    if x < n:
        shifted = (x + 0.5) / n
        high = optimize.brentq(lambda t: t - shifted - z * math.sqrt(t * (1 - t) / n), shifted, 1.0,
                               xtol=1e-15, rtol=1e-14)
    return low, high


def clopper_pearson_by_scipy(x: int, n: int, confidence: float) -> tuple[float, float]:
    from scipy import stats

    alpha = 1 - confidence
    low = 0.0 if x == 0 else stats.beta.ppf(alpha / 2, x, n - x + 1)
    high = 1.0 if x == n else stats.beta.ppf(1 - alpha / 2, x + 1, n - x)
    return float(low), float(high)


def joint_answers(rng: np.random.Generator, table, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of true answers (A, B) drawn i.i.d. from the k_A x k_B table of joint fractions."""
    table = np.asarray(table, dtype=float)
    cells = rng.choice(table.size, size=size, p=table.ravel())
    return cells // table.shape[1], cells % table.shape[1]


def simulate_joint(a, b, table, n: int, reps: int, rng: np.random.Generator) -> list:
    """`reps` surveys of n respondents with i.i.d. answer pairs, each question randomized by its own
    mechanism, counted by JointCounts.from_reports (the real code path) one survey at a time."""
    truth_a, truth_b = joint_answers(rng, table, n * reps)
    reports_a, reports_b = a.randomize(truth_a, rng), b.randomize(truth_b, rng)
    return [ldp.JointCounts.from_reports(a, reports_a[r * n:(r + 1) * n], b, reports_b[r * n:(r + 1) * n])
            for r in range(reps)]


def scores(mechanism, reports) -> np.ndarray:
    """(n, k) unbiased scores (1[slot j] - q) / (p - q), from the design's definition."""
    reports = np.asarray(reports)
    slots = reports if reports.ndim == 2 else (reports[:, None] == np.arange(mechanism.k))
    return (slots - mechanism.q_other) / (mechanism.p - mechanism.q_other)


def mechanism_named(name: str, epsilon: float, k: int):
    """One mechanism of the grid by name; q-RR with the q of about `epsilon`."""
    if name == "qrr":
        return qrr_near(epsilon)
    if name == "bitflip":
        return ldp.BitFlip(epsilon)
    if name == "direct":
        return ldp.Direct(k)
    return ldp.make(name, k=k, epsilon=epsilon)

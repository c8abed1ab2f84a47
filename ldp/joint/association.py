"""Are two questions' answers related? A test on the reports and a debiased effect size.

Test. If the true answers to A and B are independent, so are the reports: each is randomized
independently given its own answer. So Pearson's chi-square test of independence on the table
of *reports* has its nominal size (asymptotically); its power is lower than on the true answers
because the randomization shrinks every departure from independence by g_A g_B = (p_A - q_A)(p_B - q_B).

- two index questions (q-RR, bit flip, k-RR, direct): one k_A x k_B table of report pairs,
  X^2 = sum (O - E)^2 / E with E = row total x column total / n, df = (rows - 1)(columns - 1)
  over the rows and columns that are not empty;
- a unary question has no single category per respondent, only one 0/1 bit per option. Each
  bit of a unary question is tested against the other question (a 2 x k_B table per bit, or a
  2 x 2 table per pair of bits when both are unary), and the p-value is Bonferroni's,
  min(1, m min_i p_i) over the m tables. Its size is at most nominal; it has less power than
  a single test, and it is a test of "some option of A relates to some option of B".

p-values come from the chi-square upper tail Q(df/2, x/2), the regularized upper incomplete
gamma function (series below s + 1, Lentz's continued fraction above; Numerical Recipes).

Effect size: Cramer's V of the true answers, estimated from the debiased table.
D_ab = pi_hat_ab - pi_hat_a pi_hat_b (pi_hat_a, pi_hat_b: each question's own estimate) is
noisy, and E[D_hat^2] = D^2 + Var(D_hat) with Var(D_hat_ab) ~ Var(s_a) Var(s_b) / n under
independence, Var(s_a) = l_a (1 - l_a) / g_A^2. So

    phi^2 = sum_ab (D_hat_ab^2 - Var(s_a) Var(s_b) / n) / (pi_a pi_b),   V = sqrt(phi^2 / (min(k_A, k_B) - 1)),

over the options whose estimated fraction is more than two standard errors above 0 (dividing
by a fraction that may be 0 is not informative), clipped to [0, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import Mechanism
from .tables import JointCounts, estimate_joint


@dataclass(frozen=True)
class Independence:
    """The test's p-value, its statistic and degrees of freedom (of the most significant table
    when there are several), how many tables were tested, the debiased phi^2 (not clipped, so
    it can be negative) and Cramer's V from it (clipped to [0, 1]). The method: "pearson" (X^2 on
    df) or "rao_scott" (`ldp.weighting.association`: F on df and denominator_df, not integers)."""

    p_value: float
    statistic: float
    df: float
    tables: int
    phi_squared: float
    cramers_v: float
    method: str = "pearson"
    denominator_df: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def independence(a: Mechanism, b: Mechanism, counts: JointCounts) -> Independence:
    """Chi-square test of independence on the reports, and the debiased effect size.

    >>> from ldp import Direct, KaryRR
    >>> a, b = Direct(2), KaryRR(2.0, 3)
    >>> c = JointCounts.from_counts(a, b, [[300, 100, 100], [100, 100, 300]], 1000)
    >>> r = independence(a, b, c)
    >>> r.df, r.tables, round(r.statistic, 1), r.p_value < 1e-30, round(r.cramers_v, 2)
    (2, 1, 200.0, True, 0.63)
    """
    best = (math.inf, 0.0, 0)
    tables = _tables(a, b, counts)
    for table in tables:
        statistic, df = pearson(table)
        best = min(best, (chi2_sf(statistic, df), statistic, df))
    p_value = min(1.0, best[0] * len(tables))
    phi2 = phi_squared(a, b, counts)
    return Independence(p_value, best[1], best[2], len(tables), phi2,
                        math.sqrt(min(1.0, max(0.0, phi2 / (min(a.k, b.k) - 1)))))


def pearson(table: npt.ArrayLike) -> tuple[float, int]:
    """Pearson's X^2 and its degrees of freedom, over the non-empty rows and columns.

    >>> pearson([[10, 20], [20, 10]])
    (6.666666666666667, 1)
    """
    observed = np.asarray(table, dtype=float)
    observed = observed[observed.sum(axis=1) > 0][:, observed.sum(axis=0) > 0]
    rows, columns = observed.shape
    if rows < 2 or columns < 2:
        return 0.0, 0
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    return float(((observed - expected) ** 2 / expected).sum()), (rows - 1) * (columns - 1)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X ~ chi-square(df) = Q(df / 2, x / 2); 1 for df = 0 or x <= 0.

    >>> round(chi2_sf(3.841458820694124, 1), 12), round(chi2_sf(10.0, 4), 10)
    (0.05, 0.040427682)
    """
    if df <= 0 or x <= 0.0:
        return 1.0
    s, t = df / 2.0, x / 2.0
    front = math.exp(-t + s * math.log(t) - math.lgamma(s))
    if t < s + 1.0:  # P(s, t) by its series, Q = 1 - P
        term = total = 1.0 / s
        shape = s
        for _ in range(100_000):
            shape += 1.0
            term *= t / shape
            total += term
            if term < total * 1e-17:
                break
        return max(0.0, 1.0 - front * total)
    tiny = 1e-300
    b = t + 1.0 - s
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - s)
        b += 2.0
        d = an * d + b
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return min(1.0, front * h)


def phi_squared(a: Mechanism, b: Mechanism, counts: JointCounts) -> float:
    """phi^2 = sum_ab (pi_ab - pi_a pi_b)^2 / (pi_a pi_b) of the true answers, from the debiased
    table with the noise term removed (module docstring); 0 if fewer than two options of either
    question are clearly present."""
    n = counts.n
    pi = np.asarray(estimate_joint(a, b, counts).estimate)
    la, lb = counts.a_counts / n, counts.b_counts / n
    ga, gb = a.p - a.q_other, b.p - b.q_other
    pi_a, pi_b = (la - a.q_other) / ga, (lb - b.q_other) / gb
    var_a, var_b = la * (1.0 - la) / ga**2, lb * (1.0 - lb) / gb**2
    keep_a, keep_b = pi_a > 2.0 * np.sqrt(var_a / n), pi_b > 2.0 * np.sqrt(var_b / n)
    if keep_a.sum() < 2 or keep_b.sum() < 2:
        return 0.0
    deviation = (pi - np.outer(pi_a, pi_b))[np.ix_(keep_a, keep_b)]
    noise = np.outer(var_a[keep_a], var_b[keep_b]) / n
    return float(((deviation**2 - noise) / np.outer(pi_a[keep_a], pi_b[keep_b])).sum())


def _tables(a: Mechanism, b: Mechanism, counts: JointCounts) -> list[npt.NDArray[np.int64]]:
    pairs, rows, columns, n = counts.pairs, counts.a_counts, counts.b_counts, counts.n
    if not (a.unary or b.unary):
        return [pairs]
    if not b.unary:  # bit i of A against B's report
        return [np.stack([pairs[i], columns - pairs[i]]) for i in range(a.k)]
    if not a.unary:  # A's report against bit j of B
        return [np.stack([pairs[:, j], rows - pairs[:, j]], axis=1) for j in range(b.k)]
    return [np.array([[pairs[i, j], rows[i] - pairs[i, j]],
                      [columns[j] - pairs[i, j], n - rows[i] - columns[j] + pairs[i, j]]])
            for i in range(a.k) for j in range(b.k)]

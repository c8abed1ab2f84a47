"""The cross-tab's test of relation, as the dashboard words it: Pearson's X^2 on the reports, or Rao and Scott's F
weighted, and the debiased Cramer's V."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .crosstab_cells import covariances, exact_channel
from .raking import Weighted
from .shapes import Array, Found
from .tails import chi2_sf, f_sf

ALPHA = 0.05  # the level at which the test is put in words, as on the dashboard


TEST_COLUMNS = ["method", "statistic", "df", "denominator_df", "p_value", "tables", "phi_squared", "cramers_v",
                "alpha", "related"]


def independence(found: Found, xa: Array, xb: Array, weights: Weighted | None) -> Found:
    """The test of independence and the debiased effect size (found: the cross-tab's dict; xa, xb: its rows'
    indicators). Unweighted, Pearson's X^2 on the table of reports; weighted, Rao and Scott's F; a multi-select
    question bit by bit, the p-value Bonferroni's min(1, m min p) over the m tables, the statistic and degrees of
    freedom those of the most significant table."""
    unary_a, unary_b = (q["report"]["encoding"] == "bits" for q in (found["a"], found["b"]))
    tested: list[tuple[float, float, float, float | None]] = []
    if weights is None:
        for table in report_tables(found, unary_a, unary_b):
            statistic, df = pearson(table)
            tested.append((chi2_sf(statistic, df), statistic, df, None))
    else:
        for rows in table_sides(xa, unary_a):
            for columns in table_sides(xb, unary_b):
                f, d0, nu = rao_scott(weights, rows, columns)
                tested.append((f_sf(f, d0, d0 * nu), f, d0, d0 * nu))
    best = min(tested, key=lambda t: t[:3])
    phi2 = phi_squared(found, xa, xb)
    v = math.sqrt(min(1.0, max(0.0, phi2 / (min(xa.shape[1], xb.shape[1]) - 1))))
    p_value = min(1.0, best[0] * len(tested))
    return {"method": "pearson" if weights is None else "rao_scott", "statistic": best[1], "df": best[2],
            "denominator_df": best[3], "p_value": p_value, "tables": len(tested), "phi_squared": phi2,
            "cramers_v": v, "alpha": ALPHA, "related": p_value < ALPHA}


def report_tables(found: Found, unary_a: bool, unary_b: bool) -> list[Array]:
    """The tables of report counts tested: the k_A x k_B pairs; a unary question's bit i (set, not set) against the
    other's reports; 2 x 2 tables of two bits when both are unary."""
    pairs, rows, columns, n = found["pairs"], found["a_counts"], found["b_counts"], found["n"]
    if not (unary_a or unary_b):
        return [pairs]
    if not unary_b:
        return [np.stack([pairs[i], columns - pairs[i]]) for i in range(pairs.shape[0])]
    if not unary_a:
        return [np.stack([pairs[:, j], rows - pairs[:, j]], axis=1) for j in range(pairs.shape[1])]
    return [np.array([[pairs[i, j], rows[i] - pairs[i, j]], [columns[j] - pairs[i, j], n - rows[i] - columns[j]
                                                              + pairs[i, j]]])
            for i in range(pairs.shape[0]) for j in range(pairs.shape[1])]


def pearson(table: Array) -> tuple[float, int]:
    """Pearson's X^2 and (rows - 1)(columns - 1) over the rows and columns that are not empty; (0, 0) with fewer
    than two of either."""
    observed = np.asarray(table, dtype=float)
    observed = observed[observed.sum(axis=1) > 0][:, observed.sum(axis=0) > 0]
    r, c = observed.shape
    if r < 2 or c < 2:
        return 0.0, 0
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    return float(((observed - expected) ** 2 / expected).sum()), (r - 1) * (c - 1)


def table_sides(x: Array, unary: bool) -> list[Array]:
    """One side of the weighted tables: the options' indicators, or each bit of a unary question as (set, not set)."""
    return [np.stack([x[:, j], 1.0 - x[:, j]], axis=1) for j in range(x.shape[1])] if unary else [x]


def rao_scott(weights: Weighted, rows: Array, columns: Array) -> tuple[float, float, float]:
    """Rao and Scott's second-order F (as R's survey::svychisq, statistic "F"): (F, d0, n - 1) for the table of the
    `rows` (n, r) by `columns` (n, c) indicators of the weighted responses, rows and columns without weight left
    out; (0, 1, n - 1) with fewer than two of either. p: the cells' weighted shares, V their linearization
    covariance through the raking; X^2 Pearson's on the weighted table scaled to n; C the interaction contrasts
    (the saturated model's interaction columns less their projection on the main effects); Delta = (C' D^-1 C /
    n)^-1 (C' D^-1 V D^-1 C), D = diag(p) (with an empty cell, the shares under independence, the products of the
    margins, as the app takes them: svychisq's diag(p) is singular there); F = X^2 / tr(Delta) on d0 = tr(Delta)^2 /
    tr(Delta^2) and d0 (n - 1) degrees of freedom."""
    n, w = weights.n, weights.w
    rows, columns = rows[:, w @ rows > 0], columns[:, w @ columns > 0]
    r, c = rows.shape[1], columns.shape[1]
    if r < 2 or c < 2:
        return 0.0, 1.0, float(n - 1)
    cells = (rows[:, :, None] * columns[:, None, :]).reshape(n, r * c)  # cell (i, j) at i c + j
    p = (w @ cells) / w.sum()
    variance = covariances(weights, cells, cells)
    table = (p * n).reshape(r, c)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    x2 = float(((table - expected) ** 2 / expected).sum())
    shares = p if (p > 0).all() else expected.reshape(-1) / n
    i, j = np.divmod(np.arange(r * c), c)
    main = np.column_stack([np.ones(r * c)] + [i == k for k in range(1, r)] + [j == k for k in range(1, c)])
    interaction = np.column_stack([(i == k) & (j == m) for k in range(1, r) for m in range(1, c)]).astype(float)
    contrasts = interaction - main @ np.linalg.lstsq(main.astype(float), interaction, rcond=None)[0]
    scaled = contrasts / shares[:, None]
    delta = np.linalg.solve(contrasts.T @ scaled / n, scaled.T @ variance @ scaled)
    trace = float(np.trace(delta))
    return x2 / trace, trace ** 2 / float(np.trace(delta @ delta)), float(n - 1)


def phi_squared(found: Found, xa: Array, xb: Array) -> float:
    """The debiased phi^2 of the true answers from the unweighted reports (the app's effect size, weighted or not):
    sum (pi_ab - pi_a pi_b)^2 - Var(s_a) Var(s_b) / n) / (pi_a pi_b) over the options more than two standard errors
    above 0, pi_ab = mean(s_a s_b), pi_a = (l_a - q_A) / g_A, Var(s_a) = l_a (1 - l_a) / g_A^2; 0 with fewer than
    two such options of either question."""
    n = found["n"]
    (pa, qa), (pb, qb) = exact_channel(found["a"]), exact_channel(found["b"])
    ga, gb = pa - qa, pb - qb
    pi = ((xa - qa) / ga).T @ ((xb - qb) / gb) / n
    la, lb = found["a_counts"] / n, found["b_counts"] / n
    pi_a, pi_b = (la - qa) / ga, (lb - qb) / gb
    var_a, var_b = la * (1.0 - la) / ga ** 2, lb * (1.0 - lb) / gb ** 2
    keep_a, keep_b = pi_a > 2.0 * np.sqrt(var_a / n), pi_b > 2.0 * np.sqrt(var_b / n)
    if keep_a.sum() < 2 or keep_b.sum() < 2:
        return 0.0
    deviation = (pi - np.outer(pi_a, pi_b))[np.ix_(keep_a, keep_b)]
    noise = np.outer(var_a[keep_a], var_b[keep_b]) / n
    return float(((deviation ** 2 - noise) / np.outer(pi_a[keep_a], pi_b[keep_b])).sum())


def p_text(p: float) -> str:
    """"p = 0.0123", or "p < 0.0001" for a smaller one, as the dashboard writes it."""
    return "p < 0.0001" if p < 1e-4 else "p = " + f"{p:.4f}".rstrip("0").rstrip(".")


def relation_statement(test: Found) -> str:
    """The test in the dashboard's words."""
    values = {"p": p_text(test["p_value"]), "alpha": f"{test['alpha']:g}", "v": f"{test['cramers_v']:.2f}"}
    if test["related"]:
        return ("The answers are related: a relation this strong in the randomized reports would be rare if they "
                "were independent ({p}, below {alpha}). Estimated strength (Cramér's V, debiased): {v}."
                ).format(**values)
    return ("No evidence that the answers are related ({p}, not below {alpha}). This does not show that they are "
            "independent: the randomization hides weak relations unless there are many respondents. Estimated "
            "strength (Cramér's V, debiased): {v}.".format(**values))


def show_relation(test: Found) -> None:
    """The test as the dashboard words it, then its figures at full precision."""
    if test["method"] == "rao_scott":
        how = (f"Rao–Scott F {test['statistic']:.2f} on {test['df']:.2f} and {test['denominator_df']:.0f} degrees "
               f"of freedom, on the weighted randomized reports; tables tested: {test['tables']}")
    else:
        how = (f"chi-square {test['statistic']:.2f}, {test['df']} degrees of freedom, on the randomized reports; "
               f"tables tested: {test['tables']}")
    print(f"  Related? {relation_statement(test)} ({how})")
    print("  test: " + ", ".join(f"{name} {str(test[name]).lower() if isinstance(test[name], bool) else test[name]}"
                                 for name in TEST_COLUMNS if test[name] is not None))


def test_cells(found: Found) -> list[Any]:
    """The test's figures on every row of crosstab.csv (the columns TEST_COLUMNS)."""
    test = found.get("independence")
    return [None] * len(TEST_COLUMNS) if test is None else [test[name] for name in TEST_COLUMNS]

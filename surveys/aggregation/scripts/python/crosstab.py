"""A cross-tab of two questions (--crosstab), as the dashboard's cross-tab and the cross-tab API give it: the joint
fractions and the conditional ones both ways, printed and written in crosstab.csv's columns."""

from __future__ import annotations

import csv
from statistics import NormalDist
from typing import Any

import numpy as np

from .crosstab_cells import (
    CROSSTAB_COLUMNS,
    answered,
    covariances,
    exact_channel,
    fieller_ratio,
    indicators,
    joint_needed,
    related_question,
    score_ends,
)
from .estimates import number
from .header import CODEBOOK, REPORTS
from .raking import Weighted
from .reading import read_codebook, read_columns
from .relation import TEST_COLUMNS, independence, show_relation, test_cells
from .shapes import Found


def crosstab(reports: str = REPORTS, codebook: str = CODEBOOK, a: str | None = None, b: str | None = None,
             confidence: float = 0.95, weighted: bool = False, margin: float = 0.05) -> Found:
    """The cross-tab of questions a and b (keys such as "q1"), as the dashboard's and the cross-tab API give it: a
    dict with n, the pair counts, the joint table and the conditional fractions both ways (k_A x k_B arrays; a_given_b
    transposed to rows of A), weighted to the population margins if asked, and the test of relation ("independence",
    as the API's)."""
    if not 0.5 <= confidence < 1.0:
        raise ValueError("confidence must be in [0.5, 1)")
    if not 0.001 <= margin <= 0.5:
        raise ValueError("margin must be in [0.001, 0.5]")
    book = read_codebook(codebook)
    qa, qb = related_question(book, a), related_question(book, b)
    if qa["key"] == qb["key"]:
        raise ValueError("a cross-tab relates two different questions")
    columns = read_columns(reports, book)
    weights = Weighted(columns, book) if weighted else None
    if weights is not None:
        rows = np.flatnonzero(weights.kept)
        for q in (qa, qb):
            if not all(answered(q, columns, i) for i in rows):
                raise ValueError(f"{q['key']} was not answered by every weighted response")
    else:
        total = len(columns["response_id"])
        rows = np.array([i for i in range(total) if answered(qa, columns, i) and answered(qb, columns, i)], dtype=int)
    ca, cb = exact_channel(qa), exact_channel(qb)
    xa, xb = indicators(qa, columns, rows), indicators(qb, columns, rows)
    n, ka, kb = len(rows), xa.shape[1], xb.shape[1]
    found = {"a": qa, "b": qb, "n": n, "confidence": confidence, "weighted": weighted, "margin": margin,
             "pairs": (xa.T @ xb).astype(int), "a_counts": xa.sum(axis=0).astype(int),
             "b_counts": xb.sum(axis=0).astype(int), "needed": joint_needed(ca, cb, margin, confidence),
             "weights": None if weights is None else {"n": weights.n, "effective_n": weights.effective_n()}}
    if n == 0:
        return found
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    sa, sb = (xa - ca[1]) / (ca[0] - ca[1]), (xb - cb[1]) / (cb[0] - cb[1])  # unbiased for each option's indicator
    product = (sa[:, :, None] * sb[:, None, :]).reshape(n, ka * kb)  # s_a s_b, unbiased for the joint indicator
    c1 = (1 - 2 * ca[1]) * (1 - 2 * cb[1]) / ((ca[0] - ca[1]) * (cb[0] - cb[1]))
    unit = (ca[0] - ca[1]) * (cb[0] - cb[1])
    w = np.ones(n) if weights is None else weights.w
    second = (w @ product ** 2 / w.sum()).reshape(ka, kb)  # E[(s_a s_b)^2] at the (weighted) report rates
    if weights is None:
        pi = product.mean(axis=0).reshape(ka, kb)
        one = np.maximum(second - pi ** 2, 0.0)  # one respondent's plug-in variance (divisor n)
        variance, size = one / n, np.full((ka, kb), float(n))
    else:
        mean, var = weights.mean(product)
        pi, variance = mean.reshape(ka, kb), var.reshape(ka, kb)
        one = np.maximum(second - pi ** 2, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):  # each cell at its effective n; Kish's where 0
            size = np.where((variance > 0) & (one > 0), one / variance, weights.effective_n())
    low, high = score_ends(pi, variance * size, second - c1 * pi, c1, size, unit, z)
    found["joint"] = {"estimate": pi, "std_error": np.sqrt(variance), "ci_low": low, "ci_high": high}
    for name, (s_given, s_other) in (("b_given_a", (sa, sb)), ("a_given_b", (sb, sa))):
        k_given, k_other = s_given.shape[1], s_other.shape[1]
        cells = (s_given[:, :, None] * s_other[:, None, :]).reshape(n, k_given * k_other)
        if weights is None:
            num, den = cells.mean(axis=0), s_given.mean(axis=0)
            v_num = np.maximum((cells ** 2).mean(axis=0) - num ** 2, 0.0)
            v_den = np.maximum((s_given ** 2).mean(axis=0) - den ** 2, 0.0)
            cov = ((cells * np.repeat(s_given, k_other, axis=1)).mean(axis=0) - num * np.repeat(den, k_other))
            v_num, v_den, cov = v_num / n, v_den / n, cov / n
        else:
            num, v_num = weights.mean(cells)
            den, v_den = weights.mean(s_given)
            both = covariances(weights, cells, s_given)
            cov = np.array([both[i * k_other + j, i] for i in range(k_given) for j in range(k_other)])
        ratio = fieller_ratio(num.reshape(k_given, k_other), den[:, None], v_num.reshape(k_given, k_other),
                              v_den[:, None], cov.reshape(k_given, k_other), z)
        found[name] = dict(zip(("estimate", "std_error", "ci_low", "ci_high", "bounded"), ratio))
    found["independence"] = independence(found, xa, xb, weights)
    return found


def crosstab_rows(found: Found) -> list[list[Any]]:
    """crosstab.csv's rows: one per (option of A, option of B), the test's figures (TEST_COLUMNS) last; an undefined
    number (a denominator of 0) is None."""
    qa, qb, n = found["a"], found["b"], found["n"]
    too_few = n < found["needed"]
    warning = (f"Too few responses answering both: {n} of the {found['needed']} needed for "
               f"{found['margin'] * 100:g} points on every cell at {found['confidence'] * 100:g}%." if too_few else "")
    weights = found["weights"] or {"n": None, "effective_n": None}
    if "joint" not in found:
        return []
    joint, ba, ab = found["joint"], found["b_given_a"], found["a_given_b"]
    rows = []
    for i, label_a in enumerate(qa["options"]):
        for j, label_b in enumerate(qb["options"]):
            rows.append([qa["id"], qa["key"], qb["id"], qb["key"], n, found["confidence"], i, label_a, j, label_b,
                         int(found["pairs"][i, j]), *(number(joint[c][i, j]) for c in NUMBERS_OF_CELL),
                         *(number(ba[c][i, j]) for c in NUMBERS_OF_CELL), bool(ba["bounded"][i]),
                         *(number(ab[c][j, i]) for c in NUMBERS_OF_CELL), bool(ab["bounded"][j]),
                         found["needed"], too_few, warning, weights["n"], weights["effective_n"],
                         *test_cells(found)])
    return rows


NUMBERS_OF_CELL = ("estimate", "std_error", "ci_low", "ci_high")


def show_crosstab(found: Found) -> None:
    """The cross-tab API's figures: the joint table, then P(B | A) and P(A | B), a cell per line; the test of
    relation."""
    qa, qb, n = found["a"], found["b"], found["n"]
    print(f"Cross-tab of {qa['key']} ({qa['text']}) by {qb['key']} ({qb['text']})")
    print(f"  n = {n} responses with a report to both; intervals at {found['confidence']:g}")
    if found["weights"] is not None:
        print(f"  weighted: the {found['weights']['n']} weighted responses raked to the population margins (effective "
              f"n {found['weights']['effective_n']:.1f}); each joint cell's interval at its own effective n; counts "
              "stay the reports' own")
    if n < found["needed"]:
        print(f"  WARNING: too few respondents: n = {n} of the {found['needed']} needed for a margin of "
              f"{found['margin']:g} on every cell (worst case): the randomization of two answers at once dominates")
    if n == 0:
        print("  nobody answered both\n")
        return
    heads = ["count", "joint", "se", "low", "high", "B|A", "se", "low", "high", "A|B", "se", "low", "high"]
    width_a = max(len("A"), *(len(o) for o in qa["options"]))
    width_b = max(len("B"), *(len(o) for o in qb["options"]))
    print(f"  {'A':<{width_a}} {'B':<{width_b}}" + "".join(f" {h:>8}" for h in heads))
    for row in crosstab_rows(found):
        numbers = [row[10], *row[11:15], *row[15:19], *row[20:24]]
        text = [f"{numbers[0]:>8}"] + ["" if x is None else f"{x:>8.4f}" for x in numbers[1:]]
        print(f"  {row[7]:<{width_a}} {row[9]:<{width_b}} " + " ".join(f"{t:>8}" for t in text))
    show_relation(found["independence"])
    print()


def write_crosstab_csv(found: Found, path: str) -> None:
    """crosstab.csv's columns, then the test's (TEST_COLUMNS), every number at full precision."""
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(CROSSTAB_COLUMNS + TEST_COLUMNS)
        for row in crosstab_rows(found):
            writer.writerow(["" if v is None else str(v).lower() if isinstance(v, bool) else
                             repr(v) if isinstance(v, float) else v for v in row])

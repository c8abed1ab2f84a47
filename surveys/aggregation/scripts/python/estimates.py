"""The estimates of every question (the script's default: estimates.csv's rows), weighted or not, printed and
written."""

from __future__ import annotations

import csv
import json
import math
import sys
from fractions import Fraction
from typing import Any

import numpy as np

from .anytime import anytime_fractions, anytime_level, laplace_sequence
from .debiasing import debias, direct_mean, dlaplace_mean, mean_score, onebit_mean
from .header import ANYTIME_CONFIDENCE, ANYTIME_MARGIN, ANYTIME_NEEDED, CODEBOOK, PLANNED, REPORTS, SEQUENCE_CONFIDENCE
from .intervals import respondents_needed
from .raking import Weighted
from .reading import read_codebook, read_columns, tally
from .shapes import Columns, Question, Record

COLUMNS = ["question_key", "question_text", "mechanism", "randomized", "p", "q_other", "n", "option_index",
           "option_label", "count", "estimate", "std_error", "ci_low", "ci_high", "confidence", "interval",
           "simultaneous", "interval_level", "respondents_needed", "too_few"]


def weighted_records(q: Question, fixed: list[Any], weighted: Weighted, columns: Columns, confidence: float,
                     needed: int) -> list[Record]:
    """The question's weighted rows (weighted: a `Weighted`)."""
    mechanism = q["mechanism"]
    reports = weighted.reports(columns, q)
    n = weighted.n
    fixed = [*fixed[:-1], n]
    p = float(Fraction(mechanism["p_exact"])) if mechanism["p_exact"] is not None else None
    q_other = float(Fraction(mechanism["q_other_exact"])) if mechanism["q_other_exact"] is not None else None
    if "steps" in mechanism:  # a numeric mean
        scale = q["scale"]
        lo, hi, step = (float(Fraction(scale[name])) for name in ("lo", "hi", "step"))
        if mechanism["encoding"] == "integer":  # discrete Laplace's r, or a direct number's grid index
            values = lo + step * reports
        else:  # the 1-bit mean's bit
            assert p is not None and q_other is not None  # its bit's exact channel
            values = lo + (hi - lo) * (reports - q_other) / (p - q_other)
        direct = not q.get("randomized", True)
        found = weighted.normal_mean(values, lo, hi, confidence, n - 1 if direct and n > 1 else None)
        return [dict(zip(COLUMNS, [*fixed, "mean", "mean", n, *map(number, found), confidence, "weighted", False,
                                   confidence, needed, n < needed]))]
    assert p is not None and q_other is not None  # a question with options: its exact channel
    k = len(q["options"])
    y = reports.astype(float) if q["report"]["encoding"] == "bits" else (reports[:, None] == np.arange(k)) * 1.0
    estimate, std_error, low, high = weighted.fractions(y, p, q_other, confidence)
    counts = y.sum(axis=0).astype(int)
    records = [dict(zip(COLUMNS, [*fixed, j, label, int(counts[j]),
                                  *map(number, (estimate[j], std_error[j], low[j], high[j])),
                                  confidence, "weighted", False, confidence, needed, n < needed]))
               for j, label in enumerate(q["options"])]
    if q.get("scores") and all(s is not None for s in q["scores"]):  # fully scored only (none weighted otherwise)
        v = np.array([float(Fraction(s)) for s in q["scores"]])
        found = weighted.normal_mean(((y - q_other) / (p - q_other)) @ v, float(v.min()), float(v.max()), confidence)
        records.append(dict(zip(COLUMNS, [*fixed, "mean_score", "mean_score", n, *map(number, found), confidence,
                                          "weighted", False, confidence, needed, n < needed])))
    return records


def number(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def analyze(reports: str = REPORTS, codebook: str = CODEBOOK, confidence: float = 0.95,  # noqa: C901
            interval: str = "wilson", simultaneous: bool = False, margin: float = 0.05, weighted: bool = False,
            planned: int | None = None) -> list[Record]:
    """One record per (question, option), in the columns of COLUMNS; weighted to the population margins if asked."""
    if interval not in ("wilson", "exact", "anytime"):
        raise ValueError("interval must be wilson, exact or anytime")
    anytime = interval == "anytime"
    defaults = (confidence, margin) == (ANYTIME_CONFIDENCE, ANYTIME_MARGIN)  # where ANYTIME_NEEDED holds
    planned = PLANNED if planned is None else planned
    at = confidence if SEQUENCE_CONFIDENCE is None else SEQUENCE_CONFIDENCE  # the sequences' level
    if not 0.5 <= confidence < 1.0:
        raise ValueError("confidence must be in [0.5, 1)")
    if not 0.001 <= margin <= 0.5:
        raise ValueError("margin must be in [0.001, 0.5]")
    book = read_codebook(codebook)
    counts, values, n = tally(reports, book)
    columns = read_columns(reports, book) if weighted else {}
    weights = Weighted(columns, book) if weighted else None
    if weights is not None and hasattr(weights, "largest_difference"):
        print(f"weights: {weights.n} responses raked; largest difference from the export's weight column "
              f"{weights.largest_difference:.3g}", file=sys.stderr)
    records = []
    for q in book["questions"]:
        mechanism, key = q["mechanism"], q["key"]
        # The exact channel: fractions of the integers the browsers sampled with (none for discrete Laplace).
        p = float(Fraction(mechanism["p_exact"])) if mechanism["p_exact"] is not None else None
        q_other = float(Fraction(mechanism["q_other_exact"])) if mechanism["q_other_exact"] is not None else None
        fixed = [key, q["text"], mechanism["name"], q.get("randomized", True), p, q_other, n[key]]
        if "steps" in mechanism:  # a numeric mean (its mechanism has a grid)
            integer = mechanism["encoding"] == "integer"  # discrete Laplace's report; else the 1-bit mean's bit
            direct = integer and not q.get("randomized", True)  # a number sent as given
            if direct:
                found = direct_mean(q, values[key], n[key], confidence)
            elif integer:
                found = dlaplace_mean(q, values[key], n[key], confidence)
            else:
                found = onebit_mean(q, counts[key], n[key], confidence)
            needed = respondents_needed(q, margin, confidence)
            if weights is not None:
                records += weighted_records(q, fixed, weights, columns, confidence, needed)
                continue
            how = "t" if direct else "normal" if integer else "wilson"
            if anytime and defaults:
                needed = ANYTIME_NEEDED[key]
            if anytime and integer and not direct and n[key]:  # discrete Laplace: its mixture sequence
                found, how = (*found[:2], *laplace_sequence(q, values[key], n[key], at, planned)), "anytime"
            if anytime and not integer and n[key]:  # the 1-bit mean: its bit's sequence, in units
                scale = q["scale"]
                lo, width = float(Fraction(scale["lo"])), float(Fraction(scale["hi"]) - Fraction(scale["lo"]))
                assert p is not None and q_other is not None  # its bit's exact channel
                low, high, _ = anytime_fractions(counts[key], n[key], p, q_other, False, at, planned)
                found, how = (*found[:2], lo + width * low[1], lo + width * high[1]), "anytime"
            level = at if how == "anytime" else confidence
            records.append(dict(zip(COLUMNS, [*fixed, "mean", "mean", n[key], *map(number, found), level,
                                              how, False, level, needed, n[key] < needed])))
            continue
        assert p is not None and q_other is not None  # a question with options: its exact channel
        estimate, std_error, low, high, level = debias(counts[key], n[key], p, q_other, confidence,
                                                       "wilson" if anytime else interval, simultaneous and not anytime)
        needed = respondents_needed(q, margin, level)  # the question's rule covers its mean score too
        if anytime:  # the sequence's intervals, all of the question's holding together
            bits = q["report"]["encoding"] == "bits"
            low, high, level = anytime_fractions(counts[key], n[key], p, q_other, bits, at, planned)
            planner = anytime_level(len(counts[key]), bits, confidence)  # the planner follows --confidence
            needed = ANYTIME_NEEDED[key] if defaults else respondents_needed(q, margin, planner)
        if weights is not None:
            records += weighted_records(q, fixed, weights, columns, confidence, needed)
            continue
        for j, label in enumerate(q["options"]):
            records.append(dict(zip(COLUMNS, [
                *fixed, j, label, counts[key][j], *map(number, (estimate[j], std_error[j], low[j], high[j])),
                confidence, interval, simultaneous or anytime, level, needed, n[key] < needed])))
        if q.get("scores") and any(s is not None for s in q["scores"]):
            pi_hat = (np.asarray(counts[key]) / n[key] - q_other) / (p - q_other) if n[key] else None
            found = mean_score(q, pi_hat, n[key], p, q_other, confidence)
            records.append(dict(zip(COLUMNS, [*fixed, "mean_score", "mean_score", n[key], *map(number, found),
                                              confidence, "t", False, confidence, needed, n[key] < needed])))
    return records


def show(records: list[Record], book_path: str, margin: float = 0.05) -> None:
    with open(book_path, encoding="utf-8") as file:
        questions = json.load(file)["questions"]
    for q in questions:
        rows = [r for r in records if r["question_key"] == q["key"]]
        m = q["mechanism"]
        status = ("randomized report: do not tabulate as answers" if q.get("randomized", True)
                  else "direct answer: not randomized")
        channel = (f"p = {m['p_exact']}, q_other = {m['q_other_exact']}" if m["p_exact"] is not None
                   else f"noise scale {m['scale_exact']}, bound {m['bound']}")
        print(f"{q['key']}  {q['text']}\n  {status}; {m['name']}, {channel}; n = {rows[0]['n']}; "
              f"{rows[0]['interval']} intervals at {rows[0]['interval_level']:.6g}")
        if rows[0]["too_few"]:
            why = ("the randomization dominates" if q.get("randomized", True)
                   else "these answers are not randomized, but their intervals are wide")
            print(f"  WARNING: too few respondents: n = {rows[0]['n']} of the {rows[0]['respondents_needed']} "
                  f"needed for a margin of {margin:g} at {rows[0]['interval_level']:.6g} (worst case); {why} "
                  "and the dashboard does not show these estimates: do not read them alone")
        width = max([len("option")] + [len(r["option_label"]) for r in rows])  # labels whole, never cut
        print(f"  {'option':<{width}} {'count':>8} {'estimate':>10} {'std_error':>10} {'ci_low':>8} {'ci_high':>8}")
        for r in rows:
            numbers = ["" if r[c] is None else f"{r[c]:.4f}" for c in ("estimate", "std_error", "ci_low", "ci_high")]
            print(f"  {r['option_label']:<{width}} {r['count']:>8} {numbers[0]:>10} {numbers[1]:>10} "
                  f"{numbers[2]:>8} {numbers[3]:>8}")
        print()


def write_csv(records: list[Record], path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, COLUMNS)
        writer.writeheader()
        for r in records:
            writer.writerow({key: "" if value is None else str(value).lower() if isinstance(value, bool) else value
                             for key, value in r.items()})

"""Estimates from an exported file, offline: the survey app's reports and codebook, or anyone's
file in the same format (see docs/ldp.md).

Two inputs are read:

- reports.csv with its codebook.json: one row per response, columns as the codebook's
  `reports_csv_columns`; an index question (q-RR, bit flip, k-RR, direct) has one column with the
  reported option index (0-based), a unary question (SUE, OUE) one column per option with the
  reported bit. An empty cell is a missing report: that response does not count in that
  question's n. The file is read line by line, so its size does not matter.
- reports.json, which embeds its codebook: {"codebook": ..., "responses": [{"reports": {"q1": 0,
  "q4": [0, 1, 0, 0]}}]} (read whole).

Every question kind: a multi-select is one bit per option (like a unary encoding; its fractions need
not add up to 1), a 1-bit mean's report is the bit 0 or 1, discrete Laplace's the integer r as sent
(from -bound to steps + bound), a numeric histogram's the bin, an ordinal question's the level. A
numeric mean and an ordinal mean score are estimated as `ldp.offline.means` says, and come as one more
row per question, option_index "mean" or "mean_score" (count = n), after the options' rows (a numeric
mean has none).

Each question is debiased with the channel the reports were made with, the codebook's exact
fractions of the browser's sampler integers (`p_exact`, `q_other_exact`), never with a channel
recomputed from a configured epsilon:
    pi_hat_j = (c_j / n - q_other) / (p - q_other),  Var = lambda_j (1 - lambda_j) / (n (p - q_other)^2)
with the intervals of `ldp.stats.estimates.debias` (Wilson with continuity correction, or Clopper-Pearson),
the same numbers as the app's dashboard and estimates API for the same reports.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ..sequences.fractions import ANYTIME, at_last_look, streams
from ..sequences.means import has_sequence, mean_at_last_look
from ..stats.estimates import Estimate, MeanEstimate, debias
from . import means as analyze_means
from .codebook import CodebookQuestion, ExportError, designs

__all__ = ["ROW_COLUMNS", "CodebookQuestion", "ExportError", "QuestionEstimate", "Tally", "count_csv", "count_json",
           "designs", "estimate", "read", "rows", "sibling_codebook"]

@dataclass(frozen=True)
class QuestionEstimate:
    design: CodebookQuestion
    estimate: Estimate | None  # per-option fractions; None for a numeric mean
    level: float  # each interval's own level: the confidence, or its Bonferroni share
    mean: MeanEstimate | None = None  # a numeric mean, or an ordinal mean score
    n: int = 0
    mean_interval: str = ""  # "anytime" where the mean's interval is the sequence's, else the design's own


class Tally:
    """Running counts per question: c_j (reports of option j, or 1-bits of option j) and n; for discrete
    Laplace, how often each report r occurred."""

    def __init__(self, questions: list[CodebookQuestion]):
        self.questions = questions
        self.counts = {q.key: [0] * q.k for q in questions}
        self.values: dict[str, dict[int, int]] = {q.key: {} for q in questions}
        self.n = dict.fromkeys((q.key for q in questions), 0)

    def add(self, question: CodebookQuestion, report: int | list[int] | None, where: str) -> None:
        """One report: an option index, k bits, or an integer r; None is a missing report."""
        if report is None:
            return
        if question.encoding == "integer":
            low, high = question.report_range
            if not isinstance(report, int) or isinstance(report, bool) or not low <= report <= high:
                raise ExportError(f"{where}: {question.key} must be an integer from {low} to {high}")
            values = self.values[question.key]
            values[report] = values.get(report, 0) + 1
        elif question.encoding == "index":
            if not isinstance(report, int) or isinstance(report, bool) or not 0 <= report < question.k:
                raise ExportError(f"{where}: {question.key} must be an option index from 0 to {question.k - 1}")
            self.counts[question.key][report] += 1
        else:
            if not isinstance(report, list) or len(report) != question.k or any(b not in (0, 1) for b in report):
                raise ExportError(f"{where}: {question.key} must be {question.k} bits (0 or 1)")
            counts = self.counts[question.key]
            for j, bit in enumerate(report):
                counts[j] += bit
        self.n[question.key] += 1


def count_csv(lines: Iterable[str], questions: list[CodebookQuestion]) -> Tally:
    """Counts from the lines of a reports.csv whose columns the codebook names."""
    rows = csv.reader(lines)
    header = next(rows, None)
    if header is None:
        raise ExportError("the reports file is empty (not even a header)")
    place = {name: i for i, name in enumerate(header)}
    missing = [c for q in questions for c in q.columns if c not in place]
    if missing:
        raise ExportError(f"the reports file has no column {missing[0]!r} (is it this codebook's export?)")
    tally = Tally(questions)
    for line, row in enumerate(rows, start=2):
        if len(row) != len(header):
            raise ExportError(f"line {line}: {len(row)} cells, the header has {len(header)}")
        for q in questions:
            cells = [row[place[c]] for c in q.columns]
            tally.add(q, _cells(cells, q, line), f"line {line}")
    return tally


def _given(question: CodebookQuestion, value: Any, where: str) -> Any:
    """A number sent as given, as an export carries it (its value lo + step * i), read back as its grid index i
    (what its estimate counts); anything else as it is. A value off the grid is refused."""
    if question.randomized or question.encoding != "integer" or value is None or isinstance(value, bool):
        return value
    lo, step = (Fraction(str(question.described[name])) for name in ("lo", "step"))
    try:
        index = (Fraction(str(value)) - lo) / step
    except (ValueError, ZeroDivisionError, TypeError):
        raise ExportError(f"{where}: {question.key} must be a number on its grid") from None
    if index.denominator != 1:
        raise ExportError(f"{where}: {question.key} must be a number on its grid, lo + step * i")
    return int(index)


def _cells(cells: list[str], question: CodebookQuestion, line: int) -> int | list[int] | None:
    if all(cell == "" for cell in cells):
        return None
    if not question.randomized and question.encoding == "integer":  # a number sent as given: its value
        return int(_given(question, cells[0], f"line {line}"))
    try:
        values = [int(cell) for cell in cells]
    except ValueError:
        raise ExportError(f"line {line}: {question.key} has a cell that is not a whole number") from None
    return values if question.encoding == "bits" else values[0]


def count_json(document: Any, questions: list[CodebookQuestion]) -> Tally:
    """Counts from a parsed reports.json."""
    tally = Tally(questions)
    for i, response in enumerate(document.get("responses", [])):
        reports = response.get("reports", {}) if isinstance(response, dict) else None
        if not isinstance(reports, dict):
            raise ExportError(f"response {i}: no reports object")
        for q in questions:
            tally.add(q, _given(q, reports.get(q.key), f"response {i}"), f"response {i}")
    return tally


def estimate(tally: Tally, *, confidence: float = 0.95, interval: str = "wilson", simultaneous: bool = False,
             planned: int | None = None) -> list[QuestionEstimate]:
    """Every question's estimates from its counts, as `ldp.stats.estimates.debias` gives them, and its mean or
    mean score as `ldp.offline.means` does (at `confidence`, never a Bonferroni share).

    interval "anytime": the same estimates and standard errors with the intervals of the confidence sequences
    (`ldp.sequences.fractions`, `ldp.sequences.means`) at the file's n, all of a question's holding together however
    often
    the reports were looked at; `planned` (default: each question's n) is where they are narrowest, the app's
    planning size to give its dashboard's figures. A mean without a sequence (a direct number, an ordinal mean
    score) keeps its fixed-n interval, named in the row."""
    anytime = interval == ANYTIME
    found = []
    for q in tally.questions:
        counts, n = tally.counts[q.key], tally.n[q.key]
        mean = analyze_means.mean_of(q, counts, tally.values[q.key], n, confidence)
        mean_interval = ""
        if anytime and q.estimates_mean and mean is not None and has_sequence(analyze_means.rebuilt(q)):
            # the sum of the reports as sent: the count of 1s, or of discrete Laplace's r
            report_sum = sum(r * c for r, c in tally.values[q.key].items()) if q.encoding == "integer" else counts[1]
            mean = mean_at_last_look(analyze_means.rebuilt(q), mean, report_sum, confidence=confidence,
                                     planned=planned or n)
            mean_interval = ANYTIME
        if q.estimates_mean:
            found.append(QuestionEstimate(q, None, confidence, mean, n, mean_interval))
            continue
        est = debias(counts, n, q.p, q.q_other, confidence=confidence, interval="wilson" if anytime else interval,
                     simultaneous=simultaneous and not anytime)
        if anytime:
            mechanism = analyze_means.rebuilt(q)
            est = at_last_look(mechanism, est, confidence, planned or n)
            level = 1.0 - (1.0 - confidence) / streams(mechanism)
        else:
            level = 1.0 - (1.0 - confidence) / q.k if simultaneous else confidence
        found.append(QuestionEstimate(q, est, level, mean, n))
    return found


def read(export: Path, codebook: Path | None = None) -> Tally:
    """Counts from an exported file: a .json (its codebook inside, unless one is given) or a .csv
    with its codebook (by default the file next to it named as the app names it)."""
    if export.suffix.lower() == ".json":
        document = _load(export)
        if not isinstance(document, dict):
            raise ExportError(f"{export}: not a reports export")
        questions = designs(_load(codebook) if codebook else document.get("codebook"))
        return count_json(document, questions)
    book = codebook or sibling_codebook(export)
    questions = designs(_load(book))
    with export.open(newline="", encoding="utf-8") as lines:
        return count_csv(lines, questions)


def sibling_codebook(export: Path) -> Path:
    """<slug>-reports.csv -> <slug>-codebook.json beside it (the app's download names)."""
    name = export.name
    if name.endswith("reports.csv"):
        candidate = export.with_name(name[: -len("reports.csv")] + "codebook.json")
        if candidate.exists():
            return candidate
    raise ExportError(f"{export}: no codebook beside it; give one with --codebook")


def _load(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as file:
            return json.load(file)
    except OSError as error:
        raise ExportError(f"{path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ExportError(f"{path}: not JSON ({error.msg}, line {error.lineno})") from None


ROW_COLUMNS = [
    "question_key", "question_text", "mechanism", "randomized", "p", "q_other", "n", "option_index", "option_label",
    "count", "estimate", "std_error", "ci_low", "ci_high", "confidence", "interval", "simultaneous", "interval_level",
]


def rows(found: list[QuestionEstimate]) -> Iterator[dict[str, Any]]:
    """One record per (question, option), the columns of ROW_COLUMNS, then a question's mean or mean score
    (option_index and option_label "mean" or "mean_score", count = n, interval "wilson" for a 1-bit mean,
    "normal" for discrete Laplace, "t" for a mean score); undefined numbers (n = 0, or no p) are None."""
    for item in found:
        q, e = item.design, item.estimate
        channel = [q.randomized, _finite(q.p), _finite(q.q_other), item.n]
        for j, label in enumerate(q.options):
            if e is None:
                break
            numbers = [_finite(x) for x in (e.estimate[j], e.std_error[j], e.ci_low[j], e.ci_high[j])]
            yield dict(zip(ROW_COLUMNS, [
                q.key, q.text, q.mechanism, *channel, j, label, e.counts[j], *numbers,
                e.confidence, e.interval, e.simultaneous, item.level], strict=True))
        if item.mean is not None:
            m, name = item.mean, analyze_means.mean_label(q)
            numbers = [_finite(x) for x in (m.mean, m.std_error, m.ci_low, m.ci_high)]
            yield dict(zip(ROW_COLUMNS, [
                q.key, q.text, q.mechanism, *channel, name, name, m.n, *numbers, m.confidence,
                item.mean_interval or analyze_means.interval_name(q), False, m.confidence], strict=True))


def _finite(x: float) -> float | None:
    return x if np.isfinite(x) else None

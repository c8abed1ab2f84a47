"""The dashboard's figures as tables (the CSV downloads under /results/<slug>/export/), made safe for spreadsheets.

- estimates.csv: one row per (question, option): the results service's numbers, with the
  same confidence/interval/simultaneous parameters as the dashboard and the API (with anytime intervals,
  planned and sequence_confidence are their planning size and level, the survey's, fixed when it opened:
  confidence is then the planner's and any fixed-n interval's); each row ends with
  the question's respondents_needed, too_few and its warning (surveys.aggregation.results.too_few); with
  weighted=on (a survey with population margins) the figures are weighted and the last two columns,
  weights_n and effective_n, give the responses weighted and Kish's effective sample size (empty otherwise).
- crosstab.csv?a=<id>&b=<id>: one row per (option of A, option of B): the cross-tab service's
  numbers (surveys.aggregation.relating.crosstab): the count of report pairs, the joint estimate with its
  standard error and interval, P(B = b | A = a) and P(A = a | B = b) with theirs and whether the
  conditioning answer's interval stays above 0 (bounded), then the table's respondents_needed, too_few
  and warning; header only when no response has both. With weighted=on the estimates are weighted (the counts
  stay the reports' own) and weights_n and effective_n are filled in, as in estimates.csv.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

import ldp

from ..relating.crosstab import CrossTab
from ..results.service import SurveyResults

ESTIMATE_COLUMNS = [
    "question_id", "question_key", "question_order", "question_text", "mechanism", "effective_epsilon",
    "p", "q_other", "n", "option_index", "option_label", "count", "estimate", "std_error", "ci_low", "ci_high",
    "confidence", "interval", "simultaneous", "interval_level", "clipped", "simplex",
    "ci_low_unclipped", "ci_high_unclipped", "inconsistent", "planned", "sequence_confidence", "respondents_needed",
    "too_few", "warning", "weights_n", "effective_n",
]


# A text cell a spreadsheet would run as a formula (OWASP "CSV injection"): question texts and
# option labels are typed by staff, and the researcher who opens the file is someone else.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(rows: Iterable[list[Any]]) -> Iterator[list[Any]]:
    """The rows with every text cell that starts like a formula prefixed with an apostrophe,
    which spreadsheets show as text; numbers (negative ones too) are left alone."""
    for row in rows:
        yield [f"'{cell}" if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) else cell for cell in row]


def estimate_rows(results: SurveyResults) -> Iterator[list[Any]]:
    """Header, then one row per (question, option); undefined numbers (no reports) are empty."""
    o = results.options
    planned = "" if results.planned is None else results.planned  # anytime intervals' planning size
    # and their level: the survey's planned confidence, fixed at Open (`confidence` is the fixed-n intervals' one)
    sequence = [planned, "" if results.sequence_confidence is None else results.sequence_confidence]
    # Weighted figures (weighted=on): the responses weighted and Kish's effective n; empty when unweighted.
    summary = results.weights.summary() if results.weights is not None else {"n": "", "effective_n": ""}
    weights = [summary["n"], summary["effective_n"]]
    yield ESTIMATE_COLUMNS
    for r in results.questions:
        q, m = r.question, r.mechanism
        channel = m.describe()  # discrete Laplace has no p and q_other (None): empty cells
        fixed = [q.id, q.key, q.order, q.text, m.name, cell(m.effective_epsilon), cell(channel["p"]),
                 cell(channel["q_other"]), r.n]
        too_few = [r.needed, str(r.too_few).lower(), r.warning or ""]  # the one rule, on every row it covers
        for row in r.rows:
            yield [*fixed, row.index,
                   row.label, row.count, *map(cell, (row.estimate, row.std_error, row.ci_low, row.ci_high)),
                   o.confidence, o.interval, str(o.simultaneous).lower(), r.level,
                   cell(row.clipped), cell(row.simplex), cell(row.ci_low_unclipped), cell(row.ci_high_unclipped),
                   str(row.inconsistent).lower(), *sequence, *too_few, *weights]
        if r.mean is not None:
            index = "mean" if r.is_mean else "mean_score"
            e = r.mean
            yield [*fixed, index, index, r.n, *map(cell, (e.mean, e.std_error, e.ci_low, e.ci_high)),
                   e.confidence, r.interval if r.is_mean and r.anytime else _mean_interval(r.is_mean, m),
                   "false", e.confidence, "", "", "", "",
                   "false", *(sequence if r.anytime and r.is_mean else ["", ""]), *too_few, *weights]


def _mean_interval(is_mean: bool, mechanism: ldp.Mechanism) -> str:
    """How a mean's interval is made: its mechanism's (`mean_interval`: Wilson mapped for the 1-bit mean,
    normal for discrete Laplace), or Student t (an ordinal question's mean score, `ldp.mean_score`)."""
    if not is_mean or mechanism.mean_interval is None:
        return "t"
    return mechanism.mean_interval


CROSSTAB_COLUMNS = [
    "a_id", "a_key", "b_id", "b_key", "n", "confidence", "a_index", "a_label", "b_index", "b_label", "count",
    "estimate", "std_error", "ci_low", "ci_high",
    "b_given_a", "b_given_a_std_error", "b_given_a_ci_low", "b_given_a_ci_high", "b_given_a_bounded",
    "a_given_b", "a_given_b_std_error", "a_given_b_ci_low", "a_given_b_ci_high", "a_given_b_bounded",
    "respondents_needed", "too_few", "warning", "weights_n", "effective_n",
]


def crosstab_rows(table: CrossTab) -> Iterator[list[Any]]:
    """Header, then one row per cell; undefined numbers (a denominator of 0) are empty."""
    yield CROSSTAB_COLUMNS
    too_few = [table.needed, str(table.too_few).lower(), table.warning or ""]
    summary = table.weights.summary() if table.weights is not None else {"n": "", "effective_n": ""}
    weights = [summary["n"], summary["effective_n"]]
    for c in table.cells:
        yield [table.a.id, table.a.key, table.b.id, table.b.key, table.n, table.confidence,
               c.a_index, c.a_label, c.b_index, c.b_label, c.count, *map(cell, c.joint),
               *map(cell, c.b_given_a[:4]), str(c.b_given_a[4]).lower(),
               *map(cell, c.a_given_b[:4]), str(c.a_given_b[4]).lower(), *too_few, *weights]


def cell(x: float | None) -> float | str:
    """A number for a CSV cell; an undefined or infinite one is empty."""
    return x if x is not None and math.isfinite(x) else ""

"""`python -m ldp analyze EXPORT [--codebook FILE] [--confidence C] [--interval wilson|exact|anytime [--planned N]]
[--simultaneous] [--format text|json|csv] [--output FILE]`: every estimate of an exported file.

EXPORT is a reports.csv (with its codebook: --codebook, or the <slug>-codebook.json beside it)
or a reports.json (its codebook inside). Text is a table per question for reading; json and csv
carry every number at full precision, one record per (question, option), then one per numeric mean
or ordinal mean score, in the columns of `ldp.offline.analyze.ROW_COLUMNS` (undefined numbers, without
reports, are null or an empty cell).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from pathlib import Path
from typing import Any, TextIO

from ..offline import analyze
from ..sequences.fractions import ANYTIME
from .args import number_in, positive_int

FORMATS = ("text", "json", "csv")


def add_parser(commands: Any) -> None:
    sub = commands.add_parser("analyze", help="every estimate of an exported reports file (CSV or JSON)")
    sub.add_argument("export", type=Path, help="a <slug>-reports.csv or <slug>-reports.json")
    sub.add_argument("--codebook", type=Path, default=None,
                     help="the codebook.json (default: the one inside a .json export, or beside a .csv)")
    sub.add_argument("--confidence", type=number_in(0.5, 1.0, "low"), default=0.95)
    sub.add_argument("--interval", choices=["wilson", "exact", ANYTIME], default="wilson",
                     help="wilson: Wilson score with continuity correction (default); exact: Clopper-Pearson; "
                          "anytime: confidence sequences, valid however often the reports were looked at")
    sub.add_argument("--planned", type=positive_int, default=None,
                     help="anytime: the planning size, where the intervals are narrowest (default: each question's n; "
                          "the app uses its planner's target)")
    sub.add_argument("--simultaneous", action="store_true",
                     help="Bonferroni: each of a question's k intervals at 1 - (1 - confidence) / k")
    sub.add_argument("--format", choices=FORMATS, default="text")
    sub.add_argument("--output", type=Path, default=None, help="write here instead of printing")


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    try:
        tally = analyze.read(args.export, args.codebook)
    except analyze.ExportError as error:
        parser.error(f"argument export: {error}")
    if args.planned is not None and args.interval != ANYTIME:
        parser.error("argument --planned: only with --interval anytime")
    found = analyze.estimate(tally, confidence=args.confidence, interval=args.interval,
                             simultaneous=args.simultaneous, planned=args.planned)
    text = {"text": table, "json": as_json, "csv": as_csv}[args.format](found)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")


def as_json(found: list[analyze.QuestionEstimate]) -> str:
    return json.dumps(list(analyze.rows(found)), indent=1, allow_nan=False) + "\n"


def as_csv(found: list[analyze.QuestionEstimate]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, analyze.ROW_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in analyze.rows(found):
        writer.writerow({key: _cell(value) for key, value in row.items()})
    return out.getvalue()


def _cell(value: Any) -> Any:
    """An undefined number is an empty cell; a flag is true or false, as in the app's estimates.csv."""
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else value


def table(found: list[analyze.QuestionEstimate]) -> str:
    out = io.StringIO()
    for item in found:
        _question_table(out, item)
    return out.getvalue()


def _question_table(out: TextIO, item: analyze.QuestionEstimate) -> None:
    q, e = item.design, item.estimate
    if not q.randomized:
        channel = "direct: not randomized"
    elif q.p_exact is None:
        d = q.described
        channel = f"randomized ({q.mechanism}): noise scale {d.get('scale_exact')}, bound {d.get('bound')}"
    else:
        channel = f"randomized ({q.mechanism}): p = {q.p_exact}, q_other = {q.q_other_exact}"
    how = f"{e.interval} intervals at {item.level:.6g}" if e is not None else f"intervals at {item.level:.6g}"
    out.write(f"{q.key}  {q.text}\n  {channel}; n = {item.n}; {how}\n")
    out.write(f"  {'option':<24} {'count':>8} {'estimate':>10} {'std_error':>10} {'ci_low':>8} {'ci_high':>8}\n")
    for row in analyze.rows([item]):
        numbers = [math.nan if row[c] is None else row[c] for c in ("estimate", "std_error", "ci_low", "ci_high")]
        cells = [f"{x:>10.4f}" if i < 2 else f"{x:>8.4f}" for i, x in enumerate(numbers)]
        out.write(f"  {str(row['option_label'])[:24]:<24} {row['count']:>8} {' '.join(cells)}\n")
    out.write("\n")

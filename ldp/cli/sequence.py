"""`python -m ldp sequence --csv FILE --outcome COL --mechanism M (--q Q | --epsilon E) [--k K] [--confidence C]
[--looks N1,N2,...] [--planned N]`: intervals valid at every look (`ldp.sequences.fractions`), from reports in file
order.

The reports are the column COL of a CSV file with a header row, one report per line, in the order they arrived:
an option index (0-based; yes/no: 0 = no, 1 = yes, "no"/"yes" also read), a 1-bit mean's bit, or discrete
Laplace's integer report r as sent. A unary encoding (sue, oue) or a multi-select reads the export's columns
COL_0 ... COL_{k-1}, one bit each (or, without them, COL holding the k bits as "0101" or "[0, 1, 0, 1]").
An empty cell is a missing report: it counts in no look. One JSON line per look (default: after every report):
{"n": t, "estimate": [...], "ci_low": [...], "ci_high": [...]}, one entry per option (yes/no: [no, yes], so index
1 = yes), or one entry for a numeric question's mean (onebit, dlaplace: --lo, --hi, --step). All entries hold
together at every look with probability >= C. --planned (default: the number of reports in the file) is the
sample size at which the intervals are narrowest. Bad arguments and unreadable files exit 2, naming the argument.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..mechanisms.registry import MECHANISMS, Mechanism
from ..sequences.stream import check_looks, stream_sequence
from . import args as cli_args
from . import multiselect_and_numeric as cli_ticks_and_numbers
from .args import number_in, positive_int

_WORDS = {"no": 0, "yes": 1, "false": 0, "true": 1}


def add_parser(commands: Any) -> None:
    sub = commands.add_parser("sequence", help="intervals valid at every look, from reports in file order")
    sub.add_argument("--csv", required=True, type=Path, help="the reports, one per line, in arrival order")
    sub.add_argument("--outcome", required=True, help="the column holding the reports (unary: COL_0 ... COL_{k-1})")
    sub.add_argument("--mechanism", required=True, choices=sorted(MECHANISMS))
    sub.add_argument("--q", type=str, help="q of q-randomized response (qrr only)")
    sub.add_argument("--epsilon", type=float, help="epsilon (all but qrr and direct)")
    sub.add_argument("--k", type=positive_int, default=None, help="options (krr, sue, oue, direct, multiselect)")
    sub.add_argument("--confidence", type=number_in(0.5, 1.0, "low"), default=0.95)
    sub.add_argument("--looks", type=_looks, default=None, help="comma-separated report counts (default: every one)")
    sub.add_argument("--planned", type=positive_int, default=None,
                     help="the sample size where the intervals are narrowest (default: the reports in the file)")
    cli_ticks_and_numbers.add_arguments(sub)


def _looks(text: str) -> list[int]:
    try:
        return [positive_int(part) for part in text.split(",")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError("must be comma-separated positive integers") from None


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    mechanism = _mechanism(parser, args)
    reports = read_reports(parser, args.csv, args.outcome, mechanism)
    if len(reports) == 0:
        parser.error(f"argument --csv: no reports in column {args.outcome!r}")
    try:
        looks = check_looks(args.looks, len(reports))
    except ValueError as error:
        parser.error(f"argument --looks: {error}")
    found = stream_sequence(mechanism, reports, looks=looks, confidence=args.confidence, planned=args.planned)
    out = sys.stdout
    for record in found.records():
        out.write(json.dumps(record, allow_nan=False) + "\n")


def _mechanism(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Mechanism:
    if args.mechanism in cli_ticks_and_numbers.NAMES:
        return cli_ticks_and_numbers.mechanism(parser, args)
    cli_ticks_and_numbers.refuse_extras(parser, args)
    return cli_args.mechanism(parser, args.mechanism, args.k, args.q, args.epsilon)


def read_reports(parser: argparse.ArgumentParser, path: Path, column: str, mechanism: Mechanism) -> np.ndarray:
    """The reports of `column` in file order (an (n, k) array of bits for unary reports); exit 2 if unreadable."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
            bits = [f"{column}_{j}" for j in range(mechanism.k)]
            split = mechanism.encoding == "bits" and all(name in header for name in bits)
            if not split and column not in header:
                parser.error(f"argument --outcome: no column {column!r} in {path}")
            rows = []
            for line, row in enumerate(reader, start=2):
                report = _report(row, column, bits if split else None, mechanism)
                if report is _MISSING:
                    continue
                if report is None:
                    parser.error(f"argument --csv: line {line}: not a {mechanism.name} report in {column!r}")
                rows.append(report)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        parser.error(f"argument --csv: cannot read {path}: {error}")
    shape = (-1, mechanism.k) if mechanism.encoding == "bits" else (-1,)
    return np.asarray(rows, dtype=np.int64).reshape(shape)


_MISSING = object()


def _report(row: dict[str, Any], column: str, bits: list[str] | None, mechanism: Mechanism) -> Any:
    """One report, _MISSING for an empty cell, None if it is not one this mechanism makes."""
    if bits is not None:
        cells = [(row.get(name) or "").strip() for name in bits]
        if not any(cells):
            return _MISSING
        values = [_integer(cell) for cell in cells]
        return values if all(v in (0, 1) for v in values) else None
    cell = (row.get(column) or "").strip()
    if not cell:
        return _MISSING
    if mechanism.encoding == "bits":
        text = cell.strip("[]").replace(",", " ").split() if cell.startswith("[") else list(cell)
        values = [_integer(part) for part in text]
        return values if len(values) == mechanism.k and all(v in (0, 1) for v in values) else None
    value = _WORDS.get(cell.lower()) if mechanism.yes_no else None
    value = _integer(cell) if value is None else value
    if value is None:
        return None
    try:
        mechanism.encode(value)  # the report range: an option index, a bit, or -bound..steps + bound
    except ValueError:
        return None
    return value


def _integer(text: str) -> int | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return int(number) if number.is_integer() else None

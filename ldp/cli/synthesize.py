"""`python -m ldp synthesize`: synthetic respondents from stored reports (`ldp.synthetic`).

    python -m ldp synthesize --csv REPORTS --spec SPEC --rows N --seed S --out FILE

REPORTS is a CSV with one column per question holding the stored report: an option index (qrr, bitflip, krr,
direct); the report's bits as a string of 0/1 characters, option 0 first (sue, oue, multiselect); for numeric
questions the grid index as sent (onebit: the bit 0 or 1; dlaplace: r, the grid index plus noise, from -bound to
steps + bound; direct_number: the grid index). An empty cell is a missing report. SPEC is
`COL=MECH:key=value:key=value;COL2=...` with the mechanisms and parameters of `python -m ldp simulate` (q,
epsilon, k, at_most, lo, hi, step), e.g. `y=qrr:q=1/2;region=direct:k=3;drug=krr:epsilon=1:k=4;
bank=oue:epsilon=2:k=5`; every column of the CSV needs one. With --codebook the app's codebook.json describes
the questions instead, and REPORTS is its reports.csv (other columns, such as response_id, are ignored).

FILE gets N rows (default: as many as REPORTS has) with the same question columns in the same order, holding
true answers: an option index (sue and oue too; with --codebook, whose reports.csv has one column per option
for them, that option's column is 1); a multi-select's ticked options as 0/1 characters, option 0 first (with
--codebook one 0/1 column per option); a numeric question's grid index i, the value lo + i * step (a 1-bit mean
is 0 or steps: its reports identify only the mean, which these ends keep with every covariance). No row is a
respondent; a figure computed from the rows is an estimate without its interval. Rows are the same for the same
seed. Printed: one JSON object with the rows, the columns and the quality report's largest difference and
warnings (`--quality FILE` writes the whole report as JSON).
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any

from ..synthetic import ReportCellError, synthesize
from ..synthetic.quality import quality
from ..synthetic.spec import CsvError, Question, SpecError, from_codebook, parse_spec, read_reports
from .args import positive_int, seed


def add_parser(commands: Any) -> None:
    sub = commands.add_parser("synthesize", help="synthetic respondents: true-looking rows fitted to stored reports",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("--csv", required=True, type=Path, help="the reports, one column per question")
    source = sub.add_mutually_exclusive_group(required=True)
    source.add_argument("--spec", type=str, help="COL=MECH:key=value:...;COL2=... (as python -m ldp simulate)")
    source.add_argument("--codebook", type=Path, help="the app's codebook.json (REPORTS: its reports.csv)")
    sub.add_argument("--rows", type=positive_int, default=None, help="rows to draw (default: the reports' rows)")
    sub.add_argument("--seed", type=seed, default=None, help="a non-negative integer: the same rows every time")
    sub.add_argument("--out", required=True, type=Path, help="the CSV of synthetic true answers")
    sub.add_argument("--quality", type=Path, default=None, help="write the quality report here (JSON)")


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    try:
        questions = parse_spec(args.spec) if args.spec is not None else from_codebook(args.codebook)
    except SpecError as error:
        parser.error(f"argument {'--spec' if args.spec is not None else '--codebook'}: {error}")
    try:
        cells = read_reports(args.csv, questions, every_column=args.spec is not None)
        made = synthesize([(q.name, q.mechanism, c) for q, c in zip(questions, cells, strict=True)],
                          rows=args.rows, seed=args.seed)
    except SpecError as error:
        parser.error(f"argument --spec: {error}")
    except (CsvError, ReportCellError) as error:
        parser.error(f"argument --csv: {error}")
    _write(args.out, parser, questions, made.cells, made.rows)
    stated = quality(made)
    if args.quality is not None:
        args.quality.write_text(json.dumps(stated.to_dict(), indent=1) + "\n", encoding="utf-8")
    print(json.dumps({"rows": made.rows, "columns": [c for q in questions for c in q.outputs],
                      "largest_difference": stated.largest, "warnings": [w.text for w in stated.warnings]}))


def _write(path: Path, parser: argparse.ArgumentParser, questions: list[Question], cells: dict[str, list[str]],
           rows: int) -> None:
    header = [c for q in questions for c in q.outputs]
    columns = [column for q in questions for column in _split(q, cells[q.name])]
    try:
        with path.open("w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(zip(*columns, strict=True) if columns else [[]] * rows)
    except OSError as error:
        parser.error(f"argument --out: cannot write {path}: {error.strerror}")


def _split(question: Question, cells: list[str]) -> list[list[str]]:
    """A codebook's bits question (one output column per option): a multi-select's bits, or the option's one-hot."""
    if len(question.outputs) == 1:
        return [cells]
    k = len(question.outputs)
    if question.mechanism.name == "multiselect":
        return [[cell[j] for cell in cells] for j in range(k)]
    return [["1" if cell == str(j) else "0" for cell in cells] for j in range(k)]

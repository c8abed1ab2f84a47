"""Reading the downloads: the codebook, the reports CSV tallied per question or as text columns (a number sent as
given as its grid index)."""

from __future__ import annotations

import csv
import json
import sys
from fractions import Fraction

from .header import MECHANISM_VERSION
from .shapes import Book, Columns, Counts, Question


def given_number(q: Question) -> bool:
    """Whether q is a number sent as given: the file carries its value lo + step * i, the debiasing its index i."""
    return q["report"]["encoding"] == "integer" and not q.get("randomized", True)


def grid_index(q: Question, cell: str, where: str) -> str:
    """A number sent as given, as the file carries it (its value), as the text of its grid index i; "" stays."""
    if cell == "":
        return cell
    scale = q["scale"]
    i = (Fraction(cell) - Fraction(scale["lo"])) / Fraction(scale["step"])
    if i.denominator != 1 or not 0 <= i <= q["mechanism"]["steps"]:
        sys.exit(f"{where}: {q['key']} must be a number from {scale['lo']} to {scale['hi']} by {scale['step']}")
    return str(i.numerator)


def read_columns(path: str, book: Book) -> Columns:
    """The reports CSV as text columns by name (the weighted figures need each response's row); a number sent as
    given as the text of its grid index."""
    with open(path, newline="", encoding="utf-8") as file:
        rows = csv.reader(file)
        header = next(rows)
        if header != book["reports_csv_columns"]:
            sys.exit(f"{path}: its columns are not those the codebook names")
        found = list(zip(*rows))
    columns = {name: list(found[i]) if found else [] for i, name in enumerate(header)}
    for q in filter(given_number, book["questions"]):
        name = q["report"]["csv_columns"][0]
        columns[name] = [grid_index(q, cell, path) for cell in columns[name]]
    return columns


def read_codebook(path: str, own: bool = True) -> Book:
    """own: the codebook of this script's survey, whose mechanism version the script was made for (another wave's
    has a version of its own)."""
    with open(path, encoding="utf-8") as file:
        book = json.load(file)
    if book.get("format") != "ldp-survey-codebook/2":
        sys.exit(f"{path}: not a codebook of this format (ldp-survey-codebook/2)")
    if own and book["survey"]["mechanism_version"] != MECHANISM_VERSION:
        print(f"warning: {path} is of mechanism version {book['survey']['mechanism_version']}, "
              f"this script of {MECHANISM_VERSION}", file=sys.stderr)
    return book


def tally(path: str, book: Book) -> tuple[dict[str, Counts], dict[str, dict[int, int]], dict[str, int]]:  # noqa: C901
    """c_j and n per question key, reading the CSV one line at a time."""
    questions = book["questions"]
    counts = {q["key"]: [0] * (len(q["options"]) or 2) for q in questions}  # a 1-bit mean: reports of 0 and 1
    # discrete Laplace: how often each report r occurred
    values: dict[str, dict[int, int]] = {q["key"]: {} for q in questions}
    n = {q["key"]: 0 for q in questions}
    versions = set()
    with open(path, newline="", encoding="utf-8") as file:
        rows = csv.reader(file)
        header = next(rows)
        if header != book["reports_csv_columns"]:
            sys.exit(f"{path}: its columns are not those the codebook names")
        place = {name: i for i, name in enumerate(header)}
        for line, row in enumerate(rows, start=2):
            versions.add(row[place["mechanism_version"]])
            for q in questions:
                cells = [row[place[c]] for c in q["report"]["csv_columns"]]
                if all(cell == "" for cell in cells):
                    continue
                if given_number(q):
                    cells = [grid_index(q, cells[0], f"line {line}")]
                reported = [int(cell) for cell in cells]
                k = len(counts[q["key"]])
                encoding = q["report"]["encoding"]
                if encoding == "bits":
                    if any(v not in (0, 1) for v in reported):
                        sys.exit(f"line {line}: {q['key']} must be bits (0 or 1)")
                    for j, bit in enumerate(reported):
                        counts[q["key"]][j] += bit
                elif encoding == "integer" and not q.get("randomized", True):  # a number sent as given
                    i, steps = reported[0], q["mechanism"]["steps"]
                    if not 0 <= i <= steps:
                        sys.exit(f"line {line}: {q['key']} must be a grid index from 0 to {steps}")
                    values[q["key"]][i] = values[q["key"]].get(i, 0) + 1
                elif encoding == "integer":
                    r, bound = reported[0], q["mechanism"]["bound"]
                    if not -bound <= r <= q["mechanism"]["steps"] + bound:
                        sys.exit(f"line {line}: {q['key']} must be an integer from {-bound} to "
                                 f"{q['mechanism']['steps'] + bound}")
                    values[q["key"]][r] = values[q["key"]].get(r, 0) + 1
                else:
                    if not 0 <= reported[0] < k:
                        sys.exit(f"line {line}: {q['key']} must be an option index from 0 to {k - 1}")
                    counts[q["key"]][reported[0]] += 1
                n[q["key"]] += 1
    if versions - {book["survey"]["mechanism_version"]}:
        print("warning: some reports were made with another mechanism version than the codebook's",
              file=sys.stderr)
    return counts, values, n

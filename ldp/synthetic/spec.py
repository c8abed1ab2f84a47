"""The questions of `python -m ldp synthesize`: from a spec `COL=MECH:key=value:key=value;COL2=...` (the mechanism
names and parameters of `python -m ldp simulate`: q, epsilon, k, at_most, lo, hi, step) or from the app's
codebook (`ldp.offline.codebook`), and their report cells read from a CSV.

A spec's errors raise SpecError and a CSV's CsvError, each message naming the column and, for a cell, its line
(the header is line 1).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..mechanisms import exact_q
from ..mechanisms.base import Mechanism
from ..mechanisms.grid import GridMechanism
from ..mechanisms.registry import MECHANISMS, YES_NO, make
from ..offline.codebook import CodebookQuestion, ExportError, designs
from ..offline.means import rebuilt

KEYS = {"q": str, "epsilon": float, "k": int, "at_most": int, "lo": str, "hi": str, "step": str}


class SpecError(ValueError):
    """A spec or codebook that names no questions this command can read."""


class CsvError(ValueError):
    """A reports CSV that does not hold the questions' reports."""


@dataclass(frozen=True)
class Question:
    """A question: its name in the output, its mechanism, and the input columns holding its report (several for a
    codebook's bits: one per option; their cells joined into one string of bits)."""

    name: str
    mechanism: Mechanism
    columns: tuple[str, ...]
    outputs: tuple[str, ...]  # the output's columns: the name, or a codebook's bits columns
    given_values: bool = False  # a codebook's number sent as given: its cell is the value lo + step * i


def parse_spec(text: str) -> list[Question]:
    """The questions of a spec, in its order.

    >>> [(q.name, q.mechanism.to_dict()) for q in parse_spec("y=qrr:q=1/2;region=direct:k=3")]
    [('y', {'mechanism': 'qrr', 'q': '0.5'}), ('region', {'mechanism': 'direct', 'k': 3})]
    """
    found: list[Question] = []
    for part in (piece.strip() for piece in text.split(";")):
        if not part:
            continue
        name, equals, rest = part.partition("=")
        name = name.strip()
        if not equals or not name or not rest:
            raise SpecError(f"{part!r} must be COLUMN=MECHANISM:key=value:...")
        if any(q.name == name for q in found):
            raise SpecError(f"column {name!r} is given twice")
        found.append(Question(name, _mechanism(name, rest), (name,), (name,)))
    if not found:
        raise SpecError("names no column (give COLUMN=MECHANISM:key=value;...)")
    return found


def _mechanism(column: str, text: str) -> Mechanism:
    name, *pairs = (piece.strip() for piece in text.split(":"))
    if name not in MECHANISMS:
        raise SpecError(f"{column}: unknown mechanism {name!r} (one of {', '.join(sorted(MECHANISMS))})")
    given: dict[str, Any] = {}
    for pair in pairs:
        key, equals, value = (piece.strip() for piece in pair.partition("="))
        key = key.replace("-", "_")
        if not equals or key not in KEYS:
            raise SpecError(f"{column}: {pair!r} must be key=value with a key among {', '.join(KEYS)}")
        if key in given:
            raise SpecError(f"{column}: {key} is given twice")
        try:
            given[key] = exact_q.typed(value) if key == "q" else KEYS[key](value)
        except (ValueError, ZeroDivisionError) as error:
            raise SpecError(f"{column}: {key} = {value!r} is not valid ({error})") from None
    cls = MECHANISMS[name]
    if name in YES_NO and given.get("k", 2) != 2:
        raise SpecError(f"{column}: {name} is for yes/no questions (k = 2)")
    if name not in YES_NO and not cls.estimates_mean and "k" not in given:
        raise SpecError(f"{column}: {name} needs k (its number of options)")
    try:
        return make(name, **given)
    except (ValueError, TypeError) as error:
        raise SpecError(f"{column}: {error}") from None


def from_codebook(path: Path) -> list[Question]:
    """The questions of an app codebook: output columns named as reports.csv names them."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        found = []
        for design in designs(document):
            found.append(_designed(design))
        return found
    except OSError as error:
        raise SpecError(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise SpecError(f"{path} is not JSON ({error.msg}, line {error.lineno})") from None
    except ExportError as error:
        raise SpecError(str(error)) from None


def _designed(design: CodebookQuestion) -> Question:
    mechanism = rebuilt(design)
    given = not design.randomized and design.encoding == "integer"
    return Question(design.key, mechanism, design.columns, design.columns, given_values=given)


def read_reports(path: Path, questions: list[Question], every_column: bool) -> list[npt.NDArray[np.str_]]:
    """Each question's report cells (bits columns joined), checked against the header: with `every_column` (a
    spec) every column of the CSV must be a question's, else (a codebook's export) other columns are ignored."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as file:  # a spreadsheet's byte order mark is no header
            rows = list(csv.reader(file))
    except OSError as error:
        raise CsvError(f"cannot read {path}: {error.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise CsvError(f"{path} is not a UTF-8 CSV ({error})") from None
    if not rows:
        raise CsvError(f"{path} is empty (not even a header)")
    header, body = rows[0], rows[1:]
    if len(set(header)) != len(header):
        twice = sorted({c for c in header if header.count(c) > 1})
        raise CsvError(f"its header names a column twice: {', '.join(twice)}")
    for line, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise CsvError(f"line {line} has {len(row)} cells, the header {len(header)}")
    wanted = [c for q in questions for c in q.columns]
    absent = [c for c in wanted if c not in header]
    if absent and every_column:
        raise SpecError(f"column {absent[0]!r} is not in the CSV of --csv (its columns: {', '.join(header)})")
    if absent:
        raise CsvError(f"has no column {absent[0]!r} (is it this codebook's export?)")
    unnamed = [c for c in header if c not in wanted]
    if unnamed and every_column:
        raise SpecError(f"gives no mechanism for the column {unnamed[0]!r} of --csv (every column needs one)")
    if not body:
        raise CsvError(f"{path} holds no reports (a header only)")
    place = {name: header.index(name) for name in wanted}
    columns = {name: np.asarray([row[i] for row in body], dtype=str) for name, i in place.items()}
    found = []
    for question in questions:
        cells = [columns[c] for c in question.columns]
        joined = cells[0] if len(cells) == 1 else _joined(cells)
        found.append(_grid_index(question, joined) if question.given_values else joined)
    return found


def _joined(cells: list[npt.NDArray[np.str_]]) -> npt.NDArray[np.str_]:
    empty = np.logical_and.reduce([c == "" for c in cells])
    text = cells[0]
    for more in cells[1:]:
        text = np.char.add(text, more)
    return np.where(empty, "", text)


def _grid_index(question: Question, cells: npt.NDArray[np.str_]) -> npt.NDArray[np.str_]:
    """A number sent as given, as a codebook's reports.csv holds it (its value), as its grid index."""
    mechanism = question.mechanism
    assert isinstance(mechanism, GridMechanism)
    found = []
    for line, cell in enumerate(cells.tolist(), start=2):
        if cell == "":
            found.append("")
            continue
        try:
            index = (Fraction(cell) - Fraction(mechanism.lo)) / Fraction(mechanism.step)
        except (ValueError, ZeroDivisionError):
            raise CsvError(f"line {line}, column {question.name}: {cell!r} is not a number") from None
        found.append(str(index.numerator) if index.denominator == 1 else cell)
    return np.asarray(found, dtype=str)


"""The randomized reports as labelled Stata (.dta) and SPSS (.sav) files.

Under /results/<slug>/export/: reports.dta (Stata 14 and later, format 118) and reports.sav
(uncompressed SPSS system file). Same rows and columns as reports.csv: response_id,
submitted_on (a date), mechanism_version, then per question its report column(s) with the
reported option index or bit; a missing report is a missing value; with population margins, last, the
response's weight (a double, missing when not weighted), whose notes (Stata) and documents (SPSS) give the
margins and the rule. Labels as
surveys.aggregation.exports.column_labels describes them: every report column's variable label says
whether it is a randomized report ("do not tabulate as answers") or a direct answer, its value
labels are the options (a multi-select: one 0/1 variable per option; a 1-bit mean: 0/1 labelled
with the ends lo and hi; discrete Laplace: the integer report r as sent, its label saying
"value = lo + step r"; SPSS measures it as a scale and an ordinal question's levels as ordinal).
A numeric question's grid and bins and an ordinal question's scores are in the notes and documents.
The mechanism and the exact p and q_other: in Stata, each report
variable's notes (with its full question; Stata's labels hold 80 characters), in SPSS the
variable label itself, and the file's documents (DISPLAY DOCUMENTS) give every question's full
text and channel.

pyreadstat writes each file's dictionary from a two-row prototype; the rows are read a block of
responses at a time (surveys.aggregation.exports.blocks) and written into a temporary file in the same
layout (surveys.aggregation.exports.readstat_layout), so memory does not grow with the number of responses
(the file is on disk until it has been sent).
"""

from __future__ import annotations

import functools
import itertools
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any, BinaryIO

from surveys.collection.models import Response, Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from . import blocks as report_blocks
from . import reports as exports
from . import weights as export_weights
from .blocks import Lookup
from .column_labels import WEIGHT_TEXT, Column, Measure, characters, columns, fit, one_line, utf8_bytes, wrap
from .readstat_layout import Field, Layout, SpssLayout, StataLayout

STATA_LABEL, STATA_VALUE_LABEL = 80, 32000
SPSS_LABEL, SPSS_VALUE_LABEL, SPSS_FILE_LABEL = 256, 120, 64
SPSS_DOCUMENT_LINE = 76  # of the 80 bytes a line of documents holds: PSPP's display wraps longer ones
ID_WIDTH = 36  # a UUID's text
VERSION_WIDTH = Response._meta.get_field("mechanism_version").max_length or 16
# Two rows whose dictionary pyreadstat writes: full-width texts, then short texts and missing reports.
PROTOTYPE_TEXTS = {"id": ("0" * ID_WIDTH, "1"), "version": ("0" * VERSION_WIDTH, "1")}
PROTOTYPE_DAYS = (date(2000, 1, 1), date(2024, 2, 29))
PROTOTYPE_REPORTS = (1, None)
PROTOTYPE_WEIGHTS = (0.5, None)


Blocks = Iterator[tuple[bytes, int]]  # encoded rows, and how many


def _all(blocks: Blocks) -> Blocks:
    return blocks


def stata_file(survey: Survey, current: SurveyPlan, out: BinaryIO | None = None,
               watch: Callable[[Blocks], Blocks] = _all) -> BinaryIO:
    """reports.dta, rewound, with Stata notes: in `out`, or a temporary file (deleted once closed).
    `watch` sees the blocks of rows go by (a preparation counts them)."""
    weights = export_weights.column(survey, current, list(current))
    cols = columns(current, weights is not None)
    layout = StataLayout(_fields(cols))
    notes = stata_notes(survey, current, cols)
    return _spliced(layout, _prototype(cols, stata_writer(survey, cols)),
                    watch(encoded_rows(survey, current, layout, weights)), lambda head: layout.with_notes(head, notes),
                    out)


def spss_file(survey: Survey, current: SurveyPlan, out: BinaryIO | None = None,
              watch: Callable[[Blocks], Blocks] = _all) -> BinaryIO:
    """reports.sav, rewound: in `out`, or a temporary file (deleted once closed)."""
    weights = export_weights.column(survey, current, list(current))
    cols = columns(current, weights is not None)
    writer = spss_writer(survey, current, cols)
    layout = SpssLayout(_fields(cols))
    return _spliced(layout, _prototype(cols, writer), watch(encoded_rows(survey, current, layout, weights)), out=out)


Writer = Callable[[Any, str], None]  # (a data frame, the path to write it to)


def stata_writer(survey: Survey, cols: list[Column]) -> Writer:
    """How pyreadstat writes the Stata file's dictionary, given a data frame of rows."""
    def write(frame: Any, path: str) -> None:
        import pyreadstat
        pyreadstat.write_dta(frame, path, version=14, file_label=fit(_file_label(survey), STATA_LABEL),
                             column_labels=[c.label(STATA_LABEL, characters) for c in cols],
                             variable_value_labels=_value_labels(cols, STATA_VALUE_LABEL, characters))
    return write


def spss_writer(survey: Survey, current: SurveyPlan, cols: list[Column]) -> Writer:
    """How pyreadstat writes the SPSS file's dictionary, given a data frame of rows."""
    def write(frame: Any, path: str) -> None:
        import pyreadstat
        pyreadstat.write_sav(
            frame, path, file_label=fit(_file_label(survey), SPSS_FILE_LABEL, utf8_bytes),
            column_labels=[c.label(SPSS_LABEL, utf8_bytes, with_channel=True) for c in cols],
            variable_value_labels=_value_labels(cols, SPSS_VALUE_LABEL, utf8_bytes),
            variable_measure={c.name: _measure(c) for c in cols},
            note=list(document(survey, current, cols)))
    return write


def _measure(c: Column) -> str:
    """SPSS's level of measurement: a day or a discrete Laplace report is a scale, an ordinal level ordinal."""
    if c.kind in ("day", "weight") or (c.question is not None and c.question.mechanism.encoding == "integer"):
        return "scale"
    return "ordinal" if c.question is not None and c.option is None and c.question.scores else "nominal"


def frame(cols: list[Column], rows: list[list[Any]]) -> Any:
    """A pandas data frame of rows (report columns as nullable 32-bit integers: discrete Laplace reports may
    pass 127; pyreadstat writes the same file as for Int8), as pyreadstat takes them."""
    import pandas as pd  # type: ignore[import-untyped]  # no stubs; used only to hand pyreadstat its rows

    return pd.DataFrame({c.name: pd.array([row[i] for row in rows], dtype="Int32") if c.kind == "report"
                         and not _given(c) else pd.array([None if row[i] is None else float(row[i]) for row in rows],
                                                          dtype="float64") if c.kind == "weight" or _given(c)
                         else [row[i] for row in rows] for i, c in enumerate(cols)})


def stata_notes(survey: Survey, current: SurveyPlan, cols: list[Column]) -> dict[str, list[str]]:
    """Stata notes (`notes` lists them): the dataset's, and per report variable what it is, its full
    question and its exact channel, which Stata's 80-character variable labels cannot hold."""
    found = {"_dta": _preamble(survey, current)}
    for c in cols:
        if c.kind == "weight":
            found[c.name] = list(_weight_words(survey, current))
        if c.question is None:
            continue
        what = [c.status, f"Question {c.question.key}: {one_line(c.question.text)}"]
        if not c.label_is_whole(STATA_LABEL, characters):
            what.append(f"Stata's {STATA_LABEL}-character variable label holds only part of this text; "
                        "it is whole here")
        if c.option is not None:
            option = one_line(c.question.options[c.option])
            what.append(f"Bit of option {c.option} ({option}): 1 if the report marks it")
        if c.question.mechanism.encoding == "integer":
            what.append(f"Channel: {c.channel}")
        else:
            what.append(f"Channel: {c.channel} (p = P(report = truth), q_other = P(report = a given other option)"
                        + (", per bit)" if c.option is not None else ")"))
        if c.meaning:
            what.append(c.meaning)
        found[c.name] = what
    return found


def _preamble(survey: Survey, current: SurveyPlan) -> list[str]:
    wave = exports.wave_of(survey)
    return [
        f"Randomized reports of the survey {survey.title!r} ({survey.slug}), mechanism version {current.version}.",
        *([f"Wave {wave['number']} of the series {wave['series']!r} (the codebook's \"wave\")."] if wave else []),
        "Each report column holds what a respondent's browser sent after randomizing the answer: "
        "do not tabulate it as answers. Debias counts with pi_hat_j = (c_j / n - q_other) / (p - q_other); "
        "a numeric mean and an ordinal mean score as the codebook's formulas say; the analysis scripts do it all.",
    ]


def document(survey: Survey, current: SurveyPlan, cols: list[Column]) -> Iterator[str]:
    """The SPSS file's documents: lines of at most 80 bytes."""
    paragraphs = _preamble(survey, current)
    for c in cols:
        if c.kind == "weight":
            paragraphs += [f"{c.name}: {words}" for words in _weight_words(survey, current)]
        if c.question is not None and c.option in (None, 0):
            key, last = c.question.key, c.question.mechanism.k - 1
            names = c.name if c.option is None else f"{key}_0 to {key}_{last}"
            meaning = f" {c.meaning}." if c.meaning else ""
            paragraphs.append(f"{names}: {c.question.text} ({c.status}; {c.channel}).{meaning}")
    for paragraph in paragraphs:
        yield from wrap(paragraph, SPSS_DOCUMENT_LINE)


def _weight_words(survey: Survey, current: SurveyPlan) -> Iterator[str]:
    """The weight's margins and rule, in words (the codebook's "weights")."""
    described = export_weights.described(survey, current)
    if described is None:
        return
    yield WEIGHT_TEXT
    for m in described["margins"]:
        shares = "; ".join(f"{one_line(s['option'])} = {s['share']:g}" for s in m["shares"])
        yield f"Margin of {m['question']} ({one_line(m['text'])}), from {one_line(m['source'])}: {shares}"
    yield f"Rule: {described['rule']}. Missing: {described['empty']}"


def _value_labels(cols: list[Column], limit: int, measure: Measure) -> dict[str, dict[int | float, str]]:
    found: dict[str, dict[int | float, str]] = {}
    for c in cols:
        if c.value_labels:
            found[c.name] = {value: fit(one_line(text), limit, measure) for value, text in c.value_labels.items()}
    return found


def _file_label(survey: Survey) -> str:
    return f"{survey.title}: randomized reports, not answers"


def _given(c: Column) -> bool:
    """A number sent as given: its value (a double: its step may be 0.5), not a report's integer."""
    return c.question is not None and c.question.given_number


def _fields(cols: list[Column]) -> list[Field]:
    widths = {"id": ID_WIDTH, "version": VERSION_WIDTH}
    kinds = {"day": "day", "weight": "double"}
    return [Field("text", widths[c.kind]) if c.kind in widths else Field("double") if _given(c)
            else Field(kinds.get(c.kind, "integer")) for c in cols]


def _prototype_rows(cols: list[Column]) -> list[list[Any]]:
    def cell(c: Column, i: int) -> Any:
        if c.kind in PROTOTYPE_TEXTS:
            return PROTOTYPE_TEXTS[c.kind][i]
        return {"day": PROTOTYPE_DAYS, "weight": PROTOTYPE_WEIGHTS}.get(c.kind, PROTOTYPE_REPORTS)[i]
    return [[cell(c, i) for c in cols] for i in range(2)]


def _prototype(cols: list[Column], write: Writer) -> tuple[bytes, list[list[Any]]]:
    """The file pyreadstat writes for the prototype rows, and those rows."""
    rows = _prototype_rows(cols)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "prototype")
        write(frame(cols, rows), path)
        return Path(path).read_bytes(), rows


def encoded_rows(survey: Survey, current: SurveyPlan, layout: Layout,
                 weights: export_weights.Column | None = None) -> Iterator[tuple[bytes, int]]:
    """Each block of responses as the file's rows, and how many rows it holds. Each row is its cells' bytes one
    after the other (`Layout.packer`): a report's from a lookup per question, the day's and version's from one per
    distinct value; the weight last (`weights`, for a survey with margins)."""
    ids, day, version, *reports = layout.fields
    ids_packed = layout.packer(ids)
    days, versions = Lookup(layout.packer(day), None), Lookup(layout.packer(version), None)
    questions = []
    for q in current:
        packers = [layout.packer(field) for field in reports[:len(exports.columns(q))]]
        reports = reports[len(packers):]
        missing = b"".join(pack(None) for pack in packers)
        questions.append(Lookup(functools.partial(_encoded_report, q, packers), missing))
    weight = layout.packer(reports[0]) if weights is not None else None
    for block in report_blocks.blocks(survey, list(current)):
        cells = [list(map(lookup.__getitem__, column)) for lookup, column in zip(questions, block.values, strict=True)]
        if weights is not None and weight is not None:
            cells.append(list(map(weight, weights.of(block))))
        yield b"".join(itertools.chain.from_iterable(zip(
            map(ids_packed, block.ids), map(days.__getitem__, block.days), map(versions.__getitem__, block.versions),
            *cells, strict=True))), len(block)
    if weights is not None:
        weights.check_used()


def _encoded_report(question: PlannedQuestion, packers: list[Callable[[Any], bytes]], value: int | str) -> bytes:
    return b"".join(pack(cell) for pack, cell in zip(packers, exports.cells(question, value), strict=True))


def _file(layout: Layout, prototype: tuple[bytes, list[list[Any]]], cells: Iterable[list[Any]],
          grow: Callable[[bytes], bytes] = lambda head: head) -> BinaryIO:
    """`_spliced` of rows given as their cells."""
    return _spliced(layout, prototype, ((layout.encode(row), 1) for row in cells), grow)


def _spliced(layout: Layout, prototype: tuple[bytes, list[list[Any]]], rows: Iterable[tuple[bytes, int]],
             grow: Callable[[bytes], bytes] = lambda head: head, out: BinaryIO | None = None) -> BinaryIO:
    """Head (as `grow` extends it), the rows (blocks of encoded rows and how many each holds), tail, into `out`
    or a temporary file; then the counts patched."""
    written, values = prototype
    head, data, tail = layout.split(written, len(values))
    layout.check(data, values)
    head = grow(head)
    out = out if out is not None else tempfile.TemporaryFile()
    out.write(head)
    n = 0
    for encoded, count in rows:
        out.write(encoded)
        n += count
    out.write(tail)
    layout.finish(out, head, n, (n - len(values)) * layout.row.size)
    return out

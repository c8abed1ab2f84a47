"""The report exports a preparation writes (surveys.aggregation.exports.prepared): per format its file name,
media type, and how its bytes are written into a file, counting the rows (responses) as they go.

The bytes are the exports' own (surveys.aggregation.exports.reports, stata_spss), written as the old
streamed downloads sent them: reports.csv and reports.json are their generators' text in UTF-8.
Rows are counted from the text's line ends: reports.csv has one per row, the header's included
(csv.writer ends each row with one, and no cell holds one); reports.json one before each response and
two in its closing "\n]}\n" (json.dumps escapes those inside strings).
synthetic.csv (surveys.aggregation.synthetic.respondents) is no report export but is made the same way: one line per
drawn row (as many as the responses) after its header, and its quality report added to the file's codebook.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from surveys.collection.models import Survey
from surveys.collection.plan import SurveyPlan

from ..synthetic import files as synthetic_files
from ..synthetic import respondents as synthetic
from . import direct_columns, release, stata_spss
from . import reports as exports

Tick = Callable[[int], None]  # told how many rows are written so far
Write = Callable[[Survey, SurveyPlan, BinaryIO, Tick, str], int | tuple[int, dict[str, Any]]]  # variant last


@dataclass(frozen=True)
class Format:
    name: str  # "reports.csv": the URL's last part and the download's name after the slug
    content_type: str
    # -> rows written, or with what the export's codebook adds under "export" (synthetic.csv: its quality)
    write: Write
    # The rows of a whole file, from the snapshot (survey, plan, variant); None: one per response.
    expected: Callable[[Survey, SurveyPlan, str], int] | None = None


def _text(chunks: Iterator[str], out: BinaryIO, tick: Tick, lines_besides_rows: int) -> int:
    lines = 0
    for chunk in chunks:
        out.write(chunk.encode())
        lines += chunk.count("\n")
        tick(max(lines - lines_besides_rows, 0))
    return lines - lines_besides_rows


def write_csv(survey: Survey, current: SurveyPlan, out: BinaryIO, tick: Tick, variant: str) -> int:
    return _text(exports.report_csv_lines(survey, current), out, tick, 1)  # the header


def write_json(survey: Survey, current: SurveyPlan, out: BinaryIO, tick: Tick, variant: str) -> int:
    return _text(exports.report_json_chunks(survey, current), out, tick, 2)  # "]}" and the end


def _labelled(make: Callable[..., BinaryIO]) -> Write:
    def write(survey: Survey, current: SurveyPlan, out: BinaryIO, tick: Tick, variant: str) -> int:
        counted = [0]

        def watch(blocks: Iterator[tuple[bytes, int]]) -> Iterator[tuple[bytes, int]]:
            for block in blocks:
                yield block
                counted[0] += block[1]
                tick(counted[0])

        make(survey, current, out, watch)
        return counted[0]
    return write


def write_release(survey: Survey, current: SurveyPlan, out: BinaryIO, tick: Tick, variant: str) -> int:
    return _text(release.csv_lines(survey, release.of_variant(current, variant)), out, tick, 1)  # the header


def release_rows(survey: Survey, current: SurveyPlan, variant: str) -> int:
    return release.expected(survey, release.of_variant(current, variant))


def _direct(write: Write) -> Write:
    """A report export written with the plan its variant asks for (surveys.aggregation.exports.direct_columns)."""
    def written(survey: Survey, current: SurveyPlan, out: BinaryIO, tick: Tick,
                variant: str) -> int | tuple[int, dict[str, Any]]:
        return write(survey, direct_columns.plan_for(current, variant), out, tick, variant)
    return written


def _report(name: str, content_type: str, write: Write) -> Format:
    return Format(name, content_type, _direct(write), direct_columns.rows)


FORMATS = {
    "csv": _report("reports.csv", "text/csv; charset=utf-8", write_csv),
    "json": _report("reports.json", "application/json", write_json),
    "dta": _report("reports.dta", "application/x-stata-dta", _labelled(stata_spss.stata_file)),
    "sav": _report("reports.sav", "application/x-spss-sav", _labelled(stata_spss.spss_file)),
    "rel": Format("release.csv", "text/csv; charset=utf-8", write_release, release_rows),
    "syn": Format("synthetic.csv", "text/csv; charset=utf-8", synthetic.write_csv),
    "sdta": Format("synthetic.dta", "application/x-stata-dta", synthetic_files.write_dta),
    "ssav": Format("synthetic.sav", "application/x-spss-sav", synthetic_files.write_sav),
}
REPORTS = ("csv", "json", "dta", "sav")  # the report exports the dashboard lists
# ... and every file it lists: the synthetic respondents too (a release is chosen on the statement page)
LISTED = (*REPORTS, "syn", "sdta", "ssav")

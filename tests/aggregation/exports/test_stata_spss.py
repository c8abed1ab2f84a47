"""The labelled Stata (.dta) and SPSS (.sav) exports: read back with pyreadstat, their values are the
reports CSV's and their labels say what each column is; they are written row by row."""

import csv
import io
import shutil
import subprocess
import tracemalloc
from datetime import date

import pyreadstat
import pytest
from django.http import FileResponse
from django.urls import reverse

from surveys.aggregation.exports import column_labels, readstat_layout, stata_spss
from surveys.collection import builder, plan
from tests.aggregation.conftest import LONG_TEXT, TRICKY_TEXT
from tests.aggregation.support import add_responses, reference_rows

FORMATS = {
    "dta": (pyreadstat.read_dta, "application/x-stata-dta"),
    "sav": (pyreadstat.read_sav, "application/x-spss-sav"),
}
RANDOMIZED = " [randomized report: do not tabulate as answers"
DIRECT = " [direct answer: not randomized"


def download(client, user, survey, name):
    client.force_login(user)
    response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]))
    assert response.status_code == 200, response.content[:300]
    return response, b"".join(response.streaming_content) if response.streaming else response.content


def read_back(client, user, survey, extension, tmp_path):
    _, body = download(client, user, survey, f"reports-{extension}")
    path = tmp_path / f"export.{extension}"
    path.write_bytes(body)
    return FORMATS[extension][0](str(path))


def csv_rows(client, user, survey):
    _, body = download(client, user, survey, "reports-csv")
    return list(csv.reader(io.StringIO(body.decode())))


@pytest.fixture
def answered(every_kind_survey):
    """The survey of every kind with 60 responses, and one more without reports for questions 1 and 4."""
    add_responses(every_kind_survey, 60, seed=8)
    current = plan.of(every_kind_survey)
    kept = [q for q in current if q.order not in (1, 4)]
    builder.write_responses(every_kind_survey, {q.id: [1 if q.mechanism.unary else 0] for q in kept})
    return every_kind_survey


@pytest.mark.parametrize("extension", FORMATS)
def test_each_labelled_export_is_a_named_attachment_sent_from_a_file(client, owner, survey, extension):
    response, _ = download(client, owner, survey, f"reports-{extension}")
    assert isinstance(response, FileResponse)
    assert response["Content-Disposition"] == f'attachment; filename="health-reports.{extension}"'
    assert response["Content-Type"] == FORMATS[extension][1]


@pytest.mark.slow
@pytest.mark.parametrize("extension", FORMATS)
def test_the_values_read_back_are_the_reports_csvs(client, owner, answered, extension, tmp_path):
    frame, meta = read_back(client, owner, answered, extension, tmp_path)
    header, *rows = csv_rows(client, owner, answered)
    assert list(frame.columns) == header and meta.number_rows == len(rows) == 61
    for row, (_, read) in zip(rows, frame.iterrows(), strict=True):
        assert read["response_id"] == row[0] and read["mechanism_version"] == row[2]
        assert read["submitted_on"] == date.fromisoformat(row[1])
        reports = ["" if value != value else str(int(value)) for value in read[header[3:]]]  # NaN is missing
        assert reports == row[3:]
    assert frame["q1"].isna().sum() == 1 and frame["q4_2"].isna().sum() == 1 and frame["q2"].isna().sum() == 0


@pytest.mark.parametrize("extension", FORMATS)
def test_every_report_column_says_it_is_a_randomized_report_or_a_direct_answer(client, owner, answered, extension,
                                                                                tmp_path):
    _, meta = read_back(client, owner, answered, extension, tmp_path)
    labels = meta.column_names_to_labels
    assert labels["q2"].startswith("Drove drunk?" + RANDOMIZED)
    assert labels["q4_1"].startswith('Colour? = Green "2"' + RANDOMIZED)
    assert labels["q6"].startswith("Age band?" + DIRECT)
    for name in ("q1", "q2", "q3", "q4_0", "q4_1", "q4_2", "q5_0", "q5_3"):
        assert RANDOMIZED in labels[name], name
    assert labels["q1"].startswith(TRICKY_TEXT[:10]) and labels["q3"].startswith(LONG_TEXT[:10])
    assert all("\n" not in label for label in labels.values())
    if extension == "dta":
        assert all(len(label) <= 80 for label in labels.values())
    else:
        assert all(len(label.encode()) <= 256 for label in labels.values())
        assert labels["q2"].endswith("bitflip (epsilon = 1.00008352337), p = 3139943215/4294967296, "
                                     "q_other = 1155024081/4294967296]")
        assert labels["q1"].endswith("qrr (q = 0.3), p = 13/20, q_other = 7/20]")
        assert labels["q6"].endswith("direct (k = 3), p = 1/1, q_other = 0/1]")


@pytest.mark.slow
@pytest.mark.parametrize("extension", FORMATS)
def test_the_value_labels_are_the_options_in_report_order(client, owner, answered, extension, tmp_path):
    _, meta = read_back(client, owner, answered, extension, tmp_path)
    values = meta.variable_value_labels
    assert values["q1"] == {0: "No", 1: "Yes"}
    assert values["q6"] == {0: "18-34", 1: "35-54", 2: "55+"}
    assert values["q4_0"] == {0: "not reported", 1: "reported"}
    assert values["q3"][0] == "Never" and values["q3"][1] == "Sometimes"
    long_option = values["q3"][2]
    if extension == "dta":
        assert long_option == "Often " + "x" * 150
    else:  # SPSS holds 120 bytes of a value label
        assert long_option == "Often " + "x" * 111 + "…"


def test_the_spss_documents_give_every_questions_full_text_and_channel(client, owner, answered, tmp_path):
    _, meta = read_back(client, owner, answered, "sav", tmp_path)
    text = " ".join(meta.notes)
    assert all(len(line.encode()) <= 76 for line in meta.notes)
    assert " ".join(LONG_TEXT.split()) in text
    assert "q4_0 to q4_2: Colour? (randomized report: do not tabulate as answers; sue (epsilon = 0.7, k = 3)" in text
    assert "q6: Age band? (direct answer: not randomized; direct (k = 3), p = 1/1, q_other = 0/1)" in text


@pytest.mark.parametrize("extension", FORMATS)
def test_a_survey_without_responses_reads_back_empty_with_its_labels(client, owner, every_kind_survey, extension,
                                                                     tmp_path):
    frame, meta = read_back(client, owner, every_kind_survey, extension, tmp_path)
    assert meta.number_rows == 0 and len(frame) == 0
    assert meta.variable_value_labels["q6"] == {0: "18-34", 1: "35-54", 2: "55+"}


@pytest.mark.slow
def test_stata_notes_give_each_report_variable_its_question_and_exact_channel(client, owner, answered, tmp_path):
    """Read with R's readstata13, which shares no code with pyreadstat: the notes (characteristics)
    Stata's `notes` command lists, and the values and labels too."""
    _, body = download(client, owner, answered, "reports-dta")
    (tmp_path / "export.dta").write_bytes(body)
    script = ('library(readstata13); d <- read.dta13("export.dta", convert.factors = FALSE); '
              'notes <- do.call(rbind, lapply(attr(d, "expansion.fields"), function(x) data.frame(v = x[1], '
              'name = x[2], text = x[3]))); write.csv(notes, "notes.csv", row.names = FALSE, fileEncoding = "UTF-8"); '
              'write.csv(data.frame(label = varlabel(d), missing = colSums(is.na(d)), '
              'q6 = paste(d$q6, collapse = "")), "variables.csv", fileEncoding = "UTF-8")')
    rscript = shutil.which("Rscript")
    assert rscript, "Rscript not found: `make system-deps` installs Debian's r-base-core and r-cran-readstata13"
    done = subprocess.run([rscript, "--vanilla", "-e", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    notes: dict = {}
    for row in csv.DictReader(open(tmp_path / "notes.csv", encoding="utf-8")):
        notes.setdefault(row["v"], {})[row["name"]] = row["text"]
    assert notes["q2"] == {
        "note0": "3", "note1": "randomized report: do not tabulate as answers", "note2": "Question q2: Drove drunk?",
        "note3": "Channel: bitflip (epsilon = 1.00008352337), p = 3139943215/4294967296, q_other = "
                 "1155024081/4294967296 (p = P(report = truth), q_other = P(report = a given other option))"}
    assert notes["q3"]["note2"] == "Question q3: " + " ".join(LONG_TEXT.split())
    assert notes["q4_2"]["note3"] == "Bit of option 2 (Blue\\Navy): 1 if the report marks it"
    assert notes["q6"]["note1"] == "direct answer: not randomized"
    assert notes["_dta"]["note0"] == "2" and "do not tabulate it as answers" in notes["_dta"]["note2"]
    assert set(notes) == {"_dta", "q1", "q2", "q3", "q4_0", "q4_1", "q4_2", "q5_0", "q5_1", "q5_2", "q5_3", "q6"}
    variables = {row[""]: row for row in csv.DictReader(open(tmp_path / "variables.csv", encoding="utf-8"))}
    assert variables["q2"]["label"] == "Drove drunk? [randomized report: do not tabulate as answers]"
    assert (variables["q1"]["missing"], variables["q4_1"]["missing"], variables["q2"]["missing"]) == ("1", "1", "0")
    header, *rows = csv_rows(client, owner, answered)
    assert variables["q6"]["q6"] == "".join(row[header.index("q6")] for row in rows)


# --- the streamed file is the file pyreadstat writes ---------------------------------------------

TIMESTAMPS = {"dta": lambda b: b[:b.index(b"<timestamp>")] + b[b.index(b"</timestamp>"):],
              "sav": lambda b: b[:92] + b[109:]}  # SPSS: creation date and time


@pytest.mark.parametrize("extension", FORMATS)
def test_the_streamed_file_is_byte_for_byte_the_one_pyreadstat_writes_from_all_rows(answered, extension, tmp_path):
    current = plan.of(answered)
    cols = column_labels.columns(current)
    write = (stata_spss.stata_writer(answered, cols) if extension == "dta"
             else stata_spss.spss_writer(answered, current, cols))
    path = str(tmp_path / "whole")
    write(stata_spss.frame(cols, list(reference_rows(answered, current))), path)
    whole = open(path, "rb").read()
    if extension == "dta":  # with the same notes
        notes = stata_spss.stata_notes(answered, current, cols)
        whole = readstat_layout.StataLayout(stata_spss._fields(cols)).with_notes(whole, notes)
    streamed = (stata_spss.stata_file if extension == "dta" else stata_spss.spss_file)(answered, current)
    assert TIMESTAMPS[extension](streamed.read()) == TIMESTAMPS[extension](whole)


@pytest.mark.parametrize("layout", [readstat_layout.StataLayout, readstat_layout.SpssLayout])
def test_a_pyreadstat_that_writes_rows_differently_is_refused(monkeypatch, survey, layout):
    """The check that guards the splice: a row encoding other than pyreadstat's fails loudly."""
    original = layout._value
    monkeypatch.setattr(layout, "_value", lambda self, field, value: original(self, field, 0 if value == 1 else value))
    with pytest.raises(readstat_layout.LayoutChanged):
        (stata_spss.stata_file if layout is readstat_layout.StataLayout
         else stata_spss.spss_file)(survey, plan.of(survey))


@pytest.mark.slow
@pytest.mark.parametrize("layout", [readstat_layout.StataLayout, readstat_layout.SpssLayout])
def test_rows_are_written_one_at_a_time(survey, layout):
    """200,000 rows through the writer without holding them: the traced peak stays far below their size."""
    current = plan.of(survey)
    cols = column_labels.columns(current)
    row = ["0" * 36, date(2026, 1, 1), current.version, 1, 0, 2, 0, 1, 1, 0]
    writer = (stata_spss.stata_writer(survey, cols) if layout is readstat_layout.StataLayout
              else stata_spss.spss_writer(survey, current, cols))
    prototype = stata_spss._prototype(cols, writer)
    tracemalloc.start()
    try:
        out = stata_spss._file(layout(stata_spss._fields(cols)), prototype,
                                     (list(row) for _ in range(200_000)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = out.seek(0, 2)
    assert size > 200_000 * 80 and peak < size / 100, (size, peak)

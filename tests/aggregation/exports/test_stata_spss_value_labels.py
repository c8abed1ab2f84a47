"""The labelled Stata (.dta) and SPSS (.sav) exports of a survey of every kind, read back with pyreadstat: a
multi-select is one 0/1 variable per option, a 1-bit mean 0/1 labelled with the ends of its range, discrete
Laplace the integer report r as sent (negative too) labelled with its scale, a histogram its bins, an ordinal
question its levels (SPSS: an ordinal measure) with its scores in the notes and documents; R's reader gives
the same labels to the CSV."""

import csv
import io

import pytest

from surveys.aggregation.exports import column_labels, readstat_layout, stata_spss
from surveys.collection import builder, plan
from tests.aggregation.exports.test_stata_spss import FORMATS, TIMESTAMPS, csv_rows, read_back
from tests.aggregation.scripts.test_analysis_scripts import fetch, rscript, run
from tests.aggregation.support import reference_rows

RANDOMIZED = " [randomized report: do not tabulate as answers]"
SCORES = ("Scores: Never = 1; Rarely = 2; Often = 3; Prefer not to say = no score (a level without a score is "
          "left out of the mean score)")


@pytest.fixture
def answered(all_kinds_survey):
    """Every kind with 80 responses whose discrete Laplace answers sit at the bottom of the range (so some
    reports are negative), and one more response without reports for questions 7 and 9."""
    builder.simulate_responses(all_kinds_survey, 80, {9: [1.0] + [0.0] * 20}, seed=4)
    current = plan.of(all_kinds_survey)
    kept = [q for q in current if q.order not in (7, 9)]
    builder.write_responses(all_kinds_survey, {
        q.id: q.mechanism.encode_many([[1] + [0] * (q.mechanism.k - 1)] if q.mechanism.unary else [0]) for q in kept})
    return all_kinds_survey


@pytest.mark.slow
@pytest.mark.parametrize("extension", FORMATS)
def test_every_kind_reads_back_with_the_reports_csvs_values(client, owner, answered, extension, tmp_path):
    frame, meta = read_back(client, owner, answered, extension, tmp_path)
    header, *rows = csv_rows(client, owner, answered)
    assert list(frame.columns) == header and meta.number_rows == len(rows) == 81
    assert header[3:] == ["q1", "q2", "q3", "q4_0", "q4_1", "q4_2", "q5_0", "q5_1", "q5_2", "q5_3", "q6",
                          "q7_0", "q7_1", "q7_2", "q7_3", "q8", "q9", "q10", "q11", "q12_0", "q12_1", "q12_2",
                          "q13_0", "q13_1", "q13_2", "q13_3"]
    for row, (_, read) in zip(rows, frame.iterrows(), strict=True):
        assert ["" if value != value else str(int(value)) for value in read[header[3:]]] == row[3:]
    assert (frame["q9"] < 0).any() and frame["q9"].isna().sum() == 1 and frame["q7_2"].isna().sum() == 1


@pytest.mark.slow
@pytest.mark.parametrize("extension", FORMATS)
def test_each_new_kind_has_its_labels(client, owner, answered, extension, tmp_path):
    _, meta = read_back(client, owner, answered, extension, tmp_path)
    labels = meta.column_names_to_labels
    values = meta.variable_value_labels
    assert labels["q7_1"].startswith("Which have you used this month? = Alcohol" if extension == "sav" else "Which")
    assert RANDOMIZED[:-1] in labels["q7_1"] and values["q7_1"] == {0: "not reported", 1: "reported"}
    assert values["q8"] == {0: "leans toward lo = 0", 1: "leans toward hi = 100"}
    assert "(value = -5 + 0.5 r) [randomized report" in labels["q9"] and "q9" not in values
    assert values["q10"] == {0: "0 to 17", 1: "18 to 64", 2: "65 to 120"}
    assert values["q11"] == {0: "Never", 1: "Rarely", 2: "Often", 3: "Prefer not to say"}
    assert values["q12_2"] == {0: "not reported", 1: "reported"}
    if extension == "sav":
        assert labels["q9"].startswith('Change in "mood"? (value = -5 + 0.5 r) [randomized report')
        assert "noise scale = 10/1 grid steps" in labels["q9"]
        measures = meta.variable_measure
        assert (measures["q9"], measures["q11"], measures["q8"], measures["q7_0"]) == (
            "scale", "ordinal", "nominal", "nominal")
        documents = " ".join(meta.notes)
        assert SCORES in documents and "Bins by lower edge: 0 (0 to 17); 18 (18 to 64); 65 (65 to 120)" in documents
        assert "1-bit mean on 0 to 100 by 1: 1 leans toward hi = 100, 0 toward lo = 0" in documents
        assert "q7_0 to q7_3: Which have you used this month?" in documents


@pytest.mark.slow
def test_the_stata_notes_give_each_new_kinds_scale_and_scores(answered):
    current = plan.of(answered)
    notes = stata_spss.stata_notes(answered, current, column_labels.columns(current))
    assert notes["q11"][-1] == SCORES
    assert notes["q12_0"][-1] == "Scores: Disagree = -1; Neutral = 0; Agree = 2.5"
    assert notes["q9"][-1].startswith("Discrete Laplace on -5 to 5 by 0.5: the report r is the grid index plus noise, "
                                      "the value -5 + 0.5 r; r from -")
    assert notes["q9"][-2].startswith("Channel: dlaplace (epsilon = 2.0, lo = -5, hi = 5, step = 0.5), noise scale")
    assert notes["q7_3"][-1] == ("Multi-select: bit j is 1 if the report ticks option j "
                                 "(at most 2 ticked in a true answer)")


@pytest.mark.slow
@pytest.mark.parametrize("extension", FORMATS)
def test_the_streamed_file_of_every_kind_is_the_one_pyreadstat_writes_from_all_rows(answered, extension, tmp_path):
    current = plan.of(answered)
    cols = column_labels.columns(current)
    write = (stata_spss.stata_writer(answered, cols) if extension == "dta"
             else stata_spss.spss_writer(answered, current, cols))
    path = str(tmp_path / "whole")
    write(stata_spss.frame(cols, list(reference_rows(answered, current))), path)
    whole = open(path, "rb").read()
    if extension == "dta":
        notes = stata_spss.stata_notes(answered, current, cols)
        whole = readstat_layout.StataLayout(stata_spss._fields(cols)).with_notes(whole, notes)
    streamed = (stata_spss.stata_file if extension == "dta" else stata_spss.spss_file)(answered, current)
    assert TIMESTAMPS[extension](streamed.read()) == TIMESTAMPS[extension](whole)


@pytest.mark.slow
def test_r_reads_every_kind_with_its_labels_and_scale(client, owner, answered, tmp_path):
    client.force_login(owner)
    folder = fetch(client, answered, tmp_path)
    script = ('source("all-reports.R"); '
              'info <- data.frame(column = names(reports), '
              'label = vapply(reports, function(x) attr(x, "label"), ""), '
              'labels = vapply(reports, function(x) paste(attr(x, "labels"), names(attr(x, "labels")), '
              'sep = "=", collapse = "|"), ""), '
              'meaning = vapply(reports, function(x) if (is.null(attr(x, "ldp"))) "" else attr(x, "ldp")$meaning, ""), '
              'scores = vapply(reports, function(x) paste(names(attr(x, "ldp")$scores), attr(x, "ldp")$scores, '
              'sep = "=", collapse = "|"), "")); '
              'write.csv(info, "labels.csv", row.names = FALSE, fileEncoding = "UTF-8"); '
              'write.csv(reports, "values.csv", row.names = FALSE, na = "", fileEncoding = "UTF-8")')
    run([rscript(), "--vanilla", "-e", script], folder)
    with (folder / "labels.csv").open(newline="", encoding="utf-8") as file:
        info = {row["column"]: row for row in csv.DictReader(file)}
    assert info["q8"]["labels"] == "0=leans toward lo = 0|1=leans toward hi = 100"
    assert info["q9"]["labels"] == "" and info["q9"]["label"] == 'Change in "mood"? (value = -5 + 0.5 r)' + RANDOMIZED
    assert info["q7_2"]["labels"] == "0=not reported|1=reported"
    assert info["q11"]["scores"] == "Never=1|Rarely=2|Often=3|Prefer not to say=NA"
    assert info["q11"]["meaning"] == SCORES and info["q10"]["meaning"].startswith("Bins by lower edge: 0 (0 to 17)")
    with (folder / "all-reports.csv").open(newline="", encoding="utf-8") as file:
        assert list(csv.reader(file)) == list(csv.reader(io.StringIO((folder / "values.csv").read_text())))

"""The analysis script's reading (surveys.aggregation.scripts.python.reading), imported directly: the reports
tallied per question, a number sent as given read as its grid index, a cell out of range or a codebook of another
format refused."""

import pytest

from surveys.aggregation.scripts.python import reading
from tests.aggregation.scripts.python import support

ROWS = [["1", "0", "2.5"], ["1", "2", ""], ["0", "2", "10"], ["", "1", "0"]]


def test_tally_counts_each_questions_reports_and_respondents(tmp_path):
    reports, codebook = support.write(tmp_path, ROWS)
    counts, values, n = reading.tally(reports, reading.read_codebook(codebook, own=False))
    assert counts["q1"] == [1, 2] and counts["q2"] == [1, 1, 2]
    assert values["q3"] == {5: 1, 20: 1, 0: 1}  # grid indexes of 2.5, 10 and 0
    assert n == {"q1": 3, "q2": 4, "q3": 3}


def test_read_columns_gives_text_columns_a_number_as_its_grid_index(tmp_path):
    reports, codebook = support.write(tmp_path, ROWS)
    columns = reading.read_columns(reports, reading.read_codebook(codebook, own=False))
    assert columns["q1"] == ["1", "1", "0", ""] and columns["q3"] == ["5", "", "20", "0"]


def test_a_number_off_its_grid_is_refused(tmp_path):
    reports, codebook = support.write(tmp_path, [["1", "0", "2.25"]])
    with pytest.raises(SystemExit, match="q3 must be a number from 0 to 10 by 0.5"):
        reading.tally(reports, reading.read_codebook(codebook, own=False))


def test_a_report_out_of_range_is_refused(tmp_path):
    reports, codebook = support.write(tmp_path, [["1", "3", "1"]])
    with pytest.raises(SystemExit, match="q2 must be an option index from 0 to 2"):
        reading.tally(reports, reading.read_codebook(codebook, own=False))


def test_a_codebook_of_another_format_is_refused(tmp_path):
    _, codebook = support.write(tmp_path, [], {**support.book(), "format": "ldp-survey-codebook/1"})
    with pytest.raises(SystemExit, match="not a codebook of this format"):
        reading.read_codebook(codebook)


def test_the_scripts_own_codebook_of_another_version_gets_a_warning(tmp_path, monkeypatch, capsys):
    _, codebook = support.write(tmp_path, [])
    monkeypatch.setattr(reading, "MECHANISM_VERSION", "v-other")
    reading.read_codebook(codebook)
    assert "is of mechanism version v-test, this script of v-other" in capsys.readouterr().err

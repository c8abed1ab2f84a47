"""What each column of the labelled exports says about itself, within each format's limits."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from surveys.aggregation.exports import column_labels
from surveys.aggregation.exports.column_labels import RANDOMIZED, characters, fit, utf8_bytes, wrap
from surveys.collection import plan


@given(st.text(max_size=300), st.integers(min_value=4, max_value=200))  # room for the ellipsis (3 bytes)
def test_fit_keeps_within_the_limit_and_never_cuts_a_character(text, limit):
    for measure in (characters, utf8_bytes):
        fitted = fit(text, limit, measure)
        assert measure(fitted) <= limit
        assert fitted == text or (fitted.endswith("…") and text.startswith(fitted[:-1].rstrip()))


@given(st.text(max_size=400))
def test_wrap_gives_lines_within_the_limit_with_every_word(text):
    lines = list(wrap(text, 76))
    assert all(utf8_bytes(line) <= 76 for line in lines)
    assert "".join("".join(lines).split()) == "".join(text.split())


@pytest.mark.parametrize("limit, measure", [(80, characters), (256, utf8_bytes)], ids=["stata", "spss"])
def test_the_warning_survives_the_longest_question_and_option(every_kind_survey, limit, measure):
    for column in column_labels.columns(plan.of(every_kind_survey)):
        label = column.label(limit, measure, with_channel=measure is utf8_bytes)
        assert measure(label) <= limit and "\n" not in label
        if column.question is not None and column.question.randomized:
            assert f"[{RANDOMIZED}" in label, column.name


def test_the_columns_are_the_reports_csvs(survey):
    from surveys.aggregation.exports import reports as exports

    current = plan.of(survey)
    assert [c.name for c in column_labels.columns(current)] == exports.codebook(survey, current)["reports_csv_columns"]


def test_a_bit_columns_label_keeps_its_option_before_the_questions_text(db):
    from surveys.collection import builder
    from surveys.collection.builder import QuestionSpec

    survey = builder.create_survey("paid", "Paid", [QuestionSpec(
        "In the past year, which of these have you done?", "multiselect", epsilon=2.0, kind="multi_select",
        options=["Paid cash to an official", "None of these"])])
    bits = [c for c in column_labels.columns(plan.of(survey)) if c.option is not None]
    assert [c.label(80, characters) for c in bits] == [
        f"In the… = Paid cash to an offic… [{RANDOMIZED}]",  # the 80 characters force a cut: the option first
        f"In the past yea… = None of these [{RANDOMIZED}]",
    ]
    assert [c.label_is_whole(80, characters) for c in bits] == [False, False]
    assert [c.label_is_whole(256, utf8_bytes) for c in bits] == [True, True]
    from surveys.aggregation.exports.stata_spss import stata_notes

    notes = stata_notes(survey, plan.of(survey), column_labels.columns(plan.of(survey)))
    cut = "Stata's 80-character variable label holds only part of this text; it is whole here"
    assert [notes[c.name][2] for c in bits] == [cut, cut]
    assert notes[bits[0].name][1] == "Question q1: In the past year, which of these have you done?"

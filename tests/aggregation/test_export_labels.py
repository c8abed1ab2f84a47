"""What each column of the labelled exports says about itself, within each format's limits."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from surveys.aggregation import export_labels
from surveys.aggregation.export_labels import RANDOMIZED, characters, fit, utf8_bytes, wrap
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
    for column in export_labels.columns(plan.of(every_kind_survey)):
        label = column.label(limit, measure, with_channel=measure is utf8_bytes)
        assert measure(label) <= limit and "\n" not in label
        if column.question is not None and column.question.randomized:
            assert f"[{RANDOMIZED}" in label, column.name


def test_the_columns_are_the_reports_csvs(survey):
    from surveys.aggregation import exports

    current = plan.of(survey)
    assert [c.name for c in export_labels.columns(current)] == exports.codebook(survey, current)["reports_csv_columns"]

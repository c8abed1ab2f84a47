"""The XLSForm privacy column: one cell says how a question is randomized, and is written back as read."""

import pytest

from surveys.collection.xlsform import privacy
from surveys.collection.xlsform.privacy import Privacy

# The cells of issue 42, each as read.
CELLS = {
    "qrr q=2/3": Privacy("qrr", q="2/3"),
    "bitflip epsilon=1": Privacy("bitflip", epsilon=1.0),
    "krr epsilon=1.6": Privacy("krr", epsilon=1.6),
    "oue epsilon=1": Privacy("oue", epsilon=1.0),
    "multiselect epsilon=2 at_most=3": Privacy("multiselect", epsilon=2.0, at_most=3),
    "onebit epsilon=1 lo=0 hi=100 step=1": Privacy("onebit", epsilon=1.0, lo="0", hi="100", step="1"),
    "direct": Privacy("direct"),
    "direct lo=18 hi=100 step=1": Privacy("direct", lo="18", hi="100", step="1"),
    "krr epsilon=0.1 lo=0 hi=60 step=0.5 bins=0,10,30": Privacy("krr", epsilon=0.1, lo="0", hi="60", step="0.5",
                                                                 bins=("0", "10", "30")),
}


@pytest.mark.parametrize("cell", CELLS)
def test_each_cell_reads_as_meant_and_is_written_back_as_typed(cell):
    assert privacy.parse(cell) == CELLS[cell]
    assert privacy.written(CELLS[cell]) == cell


def test_the_word_and_keys_are_read_whatever_their_case_and_spacing():
    assert privacy.parse("  QRR   Q=0.5 ") == Privacy("qrr", q="0.5")


@pytest.mark.parametrize(("cell", "message"), [
    ("", "the privacy cell is empty: say how the question is randomized (or “direct”)"),
    ("rr q=0.5", "unknown privacy word “rr”: use one of qrr, bitflip, krr, sue, oue, multiselect, onebit, "
                 "dlaplace, direct"),
    ("qrr", "qrr needs q"),
    ("krr", "krr needs epsilon"),
    ("qrr q=1", "q=1 must be between 0 and 1"),
    ("qrr q=0", "q=0 must be between 0 and 1"),
    ("qrr q=1/0", "q=1/0 is not a number (write 0.5 or 2/3)"),
    ("qrr q=0.5 epsilon=1", "qrr takes no epsilon (it takes q)"),
    ("bitflip epsilon=0", "epsilon=0 must be a positive number"),
    ("bitflip epsilon=inf", "epsilon=inf must be a positive number"),
    ("bitflip epsilon=1 epsilon=2", "epsilon is given twice"),
    ("multiselect epsilon=1 at_most=0", "at_most=0 must be a whole number, 1 or more"),
    ("onebit epsilon=1 lo=x", "lo=x is not a number"),
    ("direct q", "“q” is not key=value"),
    ("direct epsilon=1", "direct takes no epsilon (it takes bins, hi, lo, step)"),
])
def test_a_cell_it_cannot_read_is_refused_in_plain_words(cell, message):
    with pytest.raises(ValueError) as caught:
        privacy.parse(cell)

    assert str(caught.value) == message

"""The dashboard's number formats: a figure and its interval share one number of decimals, set by the
interval's width (two significant digits of a quarter of it, about one standard error), in the active
language's decimal separator."""

import math

import pytest
from django.utils import translation

from surveys.aggregation.templatetags.results_format import decimals_for, figures


@pytest.mark.parametrize("values, shown", [
    # The mean of the issue: "6.808 (6.22 to 7.396)" is now one number of decimals: a quarter-width of 0.29.
    ((6.808, 6.22, 7.396, 0.3), ["6.81", "6.22", "7.40", "0.30"]),
    ((1234.6, 1180.2, 1290.8), ["1235", "1180", "1291"]),  # a quarter-width of 27.7: no decimals
    ((0.01234, 0.0101, 0.0146), ["0.0123", "0.0101", "0.0146"]),  # 0.0011
    ((-0.5, -1.25, 0.25), ["−0.50", "−1.25", "0.25"]),  # 0.375; a true minus sign
    ((3.0, 3.0, 3.0), ["3.000", "3.000", "3.000"]),  # no width: 4 significant digits of the largest
    ((math.nan, 0.0, 10.0), ["–", "0.0", "10.0"]),  # no reports: a dash, the interval the whole scale
])
def test_a_figure_and_its_interval_share_their_decimals(values, shown):
    assert figures(*values) == shown


def test_the_decimals_stay_between_none_and_six():
    assert decimals_for(0.0, 1e-12) == 6 and decimals_for(0.0, 1e9) == 0 and decimals_for(math.nan, math.nan) == 3


def test_the_decimal_separator_is_the_languages():
    with translation.override("fr"):
        assert figures(6.808, 6.22, 7.396) == ["6,81", "6,22", "7,40"]

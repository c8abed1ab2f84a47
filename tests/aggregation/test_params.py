"""Parsing the results' query parameters (shared by dashboard, API and exports)."""

import pytest
from django.http import QueryDict

from surveys.aggregation.params import DEFAULTS, BadParameter, ResultOptions, parse
from surveys.errors import refused


def test_it_defaults_to_95_percent_the_surveys_interval_not_simultaneous_margin_5_points():
    # No interval named: the results service picks anytime while the survey is open, wilson once closed.
    assert parse(QueryDict("")) == DEFAULTS == ResultOptions(0.95, None, False, 0.05)
    assert DEFAULTS.resolved(True).interval == "anytime" and DEFAULTS.resolved(False).interval == "wilson"
    assert ResultOptions(interval="exact").resolved(True).interval == "exact"


def test_it_reads_every_parameter():
    options = parse(QueryDict("confidence=0.99&interval=exact&simultaneous=on&margin=0.02"))
    assert options == ResultOptions(0.99, "exact", True, 0.02)


@pytest.mark.parametrize("word,value", [("true", True), ("1", True), ("YES", True), ("off", False),
                                        ("false", False), ("0", False)])
def test_it_reads_the_usual_spellings_of_a_flag(word, value):
    assert parse(QueryDict(f"simultaneous={word}")).simultaneous is value


@pytest.mark.parametrize("query,field", [
    ("confidence=0.4", "confidence"),
    ("confidence=1", "confidence"),
    ("confidence=nan", "confidence"),
    ("confidence=ninety", "confidence"),
    ("interval=normal", "interval"),
    ("simultaneous=maybe", "simultaneous"),
    ("margin=0", "margin"),
    ("margin=inf", "margin"),
    ("confidence=0.9&confidence=0.95", "confidence"),
    ("confidance=0.9", "confidance"),
])
def test_it_rejects_bad_values_naming_the_parameter(query, field):
    with pytest.raises(BadParameter) as caught:
        parse(QueryDict(query))
    assert caught.value.field == field
    assert refused(caught.value) == {"error": {"code": "bad_parameter", "field": field, "reason": caught.value.reason}}


def test_it_accepts_the_ends_of_the_confidence_range():
    assert parse(QueryDict("confidence=0.5")).confidence == 0.5
    assert parse(QueryDict("confidence=0.999")).confidence == 0.999


def test_its_query_string_round_trips():
    options = ResultOptions(0.9, "exact", True, 0.03)
    assert parse(QueryDict(options.query())) == options

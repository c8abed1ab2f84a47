"""The exact decimals of numeric and ordinal questions: a numeric question's grid, its histogram's bins, an ordinal
question's scores, and the lines an admin types for them (surveys.collection.scales)."""

from decimal import Decimal

import pytest

from surveys.collection import scales
from surveys.collection.scales import Scale

D = Decimal
AGES = Scale(D("0"), D("120"), D("1"))
HALVES = Scale(D("0"), D("10"), D("0.5"))


def test_it_reads_both_databases_decimals_the_same():
    assert [str(scales.exact(x)) for x in (10.0, D("10.000000"), 0.1, D("0.100000"), D("-0.000"), "2.50")] == [
        "10", "10", "0.1", "0.1", "0", "2.5"]


@pytest.mark.parametrize("lo, hi, step, field, words", [
    (None, "10", "1", "lo", "needs this"),
    ("10", "10", "1", "hi", "must be above"),
    ("0", "10", "0", "step", "above 0"),
    ("0", "10", "3", "step", "whole number of steps"),
    ("0", "10", "0.000001", "step", "At most 1,000,000 steps"),
])
def test_it_refuses_a_scale_that_is_no_grid_naming_the_field(lo, hi, step, field, words):
    found = scales.scale_problems(*(None if x is None else D(x) for x in (lo, hi, step)))
    assert list(found) == [field] and words in found[field]


def test_a_grid_of_a_million_steps_is_fine():
    assert scales.scale_problems(D("0"), D("1"), D("0.000001")) == {}


def test_it_finds_the_grid_index_of_an_answer_exactly_and_refuses_one_off_the_grid():
    assert HALVES.steps == 20
    assert [HALVES.index(D(x)) for x in ("0", "0.5", "7.5", "10")] == [0, 1, 15, 20]
    assert [HALVES.index(D(x)) for x in ("0.25", "-0.5", "10.5")] == [None, None, None]
    assert Scale(D("0"), D("0.3"), D("0.1")).index(D("0.3")) == 3  # 0.1 + 0.2 is 0.3 here


def test_it_reads_a_level_with_its_score_and_a_bin_with_its_edge():
    assert scales.parse_line("Agree = 4", "=") == ("Agree", D("4"))
    assert scales.parse_line("A = B", "=") == ("A = B", None)  # no number: the whole line is the label
    assert scales.parse_line("Neutral", "=") == ("Neutral", None)
    assert scales.parse_line("18: Adults", ":") == ("Adults", D("18"))
    assert scales.parse_line("18", ":") == ("", D("18"))
    assert scales.parse_line("Adults", ":") == ("Adults", None)


def test_well_formed_bins_have_no_problems_and_words_for_their_ranges():
    edges = [D("0"), D("18"), D("65")]
    assert scales.bin_problems(AGES, edges) == []
    assert [scales.bin_label(AGES, edges, j) for j in range(3)] == ["0 to 17", "18 to 64", "65 to 120"]
    assert scales.edge_indexes(HALVES, [D("0"), D("2.5")]) == [0, 5]


@pytest.mark.parametrize("edges, words", [
    (["0", "65", "18"], "must increase"),  # two edges swapped
    (["0", "18", "18"], "must increase"),
    (["1", "18"], "must start at the smallest answer"),
    (["0", "17.5"], "on the grid"),
    (["0", "121"], "on the grid"),
    (["0"], "at least two bins"),
])
def test_it_refuses_bins_that_do_not_split_the_grid(edges, words):
    assert any(words in problem for problem in scales.bin_problems(AGES, [D(edge) for edge in edges]))


def test_scores_are_given_for_every_level_or_for_none():
    assert scales.score_problems([D(1), D(2), D(3)], skipped=0) == []
    assert scales.score_problems([None, None], skipped=0) == []
    assert scales.score_problems([D(1), None, D(3)], skipped=0) != []
    assert scales.score_problems([D(1), D(2), None], skipped=1) == []

"""The server's parser of skip-logic conditions (surveys/collection/relevance.py), on the table the browser's parser
(static/js/relevance.js, tests/js/relevance.test.mjs) is tested on: every operator, its edges, and every malformed
condition."""

import json
from decimal import Decimal
from pathlib import Path

import pytest

from surveys.collection import relevance

CASES = json.loads((Path(__file__).resolve().parents[1] / "js" / "fixtures" / "relevance.json").read_text(),
                   parse_float=Decimal, parse_int=Decimal)


@pytest.mark.parametrize("case", CASES["holds"], ids=lambda case: f"{case['expression']} {case['values']}")
def test_it_evaluates_each_condition_as_the_shared_table_says(case):
    assert relevance.holds(relevance.parse(case["expression"]), case["values"]) is case["holds"]


@pytest.mark.parametrize("expression", CASES["refused"])
def test_it_refuses_each_malformed_condition_with_words(expression):
    with pytest.raises(relevance.ConditionError) as refused:
        relevance.parse(expression)
    assert str(refused.value).strip()


@pytest.mark.parametrize("case", CASES["references"], ids=lambda case: case["expression"])
def test_it_lists_the_names_a_condition_refers_to_once_in_order(case):
    assert relevance.references(relevance.parse(case["expression"])) == case["names"]


def test_the_table_tries_every_operator_on_both_sides_of_its_edge():
    expressions = " ".join(case["expression"] for case in CASES["holds"])
    for operator in ("!=", "<=", ">=", " < ", " > ", " = ", " and ", " or ", "not(", "selected("):
        assert operator in expressions

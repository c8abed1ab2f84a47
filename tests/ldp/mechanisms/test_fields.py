"""One constructor from the fields a person typed: the declared keys say which it takes, and a refusal names the
field at fault."""

import pytest

import ldp
from ldp.mechanisms.fields import FieldRefusal, build


def refused(name, **fields):
    with pytest.raises(FieldRefusal) as caught:
        build(name, **fields)
    return caught.value.field, str(caught.value)


def test_it_builds_what_make_builds():
    assert build("krr", epsilon=1.0, k=3) == ldp.make("krr", epsilon=1.0, k=3)
    assert build("qrr", q="0.5") == ldp.make("qrr", q="0.5")
    assert build("multiselect", epsilon=2.0, k=4) == ldp.make("multiselect", epsilon=2.0, k=4)
    assert build("direct_number", lo="0", hi="9", step="1") == ldp.make("direct_number", lo="0", hi="9", step="1")


def test_it_names_a_field_the_mechanism_does_not_take():
    assert refused("bitflip", epsilon=1.0, k=2) == ("k", "not used by bitflip")
    assert refused("direct_number", epsilon=1.0, lo="0", hi="9", step="1") == ("epsilon", "not used by direct_number")


def test_it_names_a_field_the_mechanism_needs():
    assert refused("dlaplace", epsilon=1.0, lo="0", step="1") == ("hi", "required for dlaplace")
    assert refused("krr", epsilon=1.0) == ("k", "required for krr")


@pytest.mark.parametrize(("name", "fields", "field"), [
    ("krr", {"epsilon": 1.0, "k": 99}, "k"),
    ("krr", {"epsilon": 99.0, "k": 3}, "epsilon"),
    ("qrr", {"q": "1.5"}, "q"),
    ("multiselect", {"epsilon": 1.0, "k": 3, "at_most": 3}, "at_most"),
    ("onebit", {"epsilon": 1.0, "lo": "5", "hi": "1", "step": "1"}, "lo"),
    ("onebit", {"epsilon": 1.0, "lo": "0", "hi": "1", "step": "0.3"}, "step"),
    ("direct", {"k": 1}, "k"),
])
def test_a_constructor_s_refusal_names_its_field(name, fields, field):
    assert refused(name, **fields)[0] == field


def test_an_unknown_mechanism_is_refused_by_its_name():
    assert refused("laplace", epsilon=1.0)[0] == "mechanism"


def test_the_command_line_asks_a_direct_number_for_the_fields_it_takes():
    from tests.ldp.cli.test_main import records, run

    planned = run("plan", "--mechanism", "direct_number", "--lo", "0", "--hi", "10", "--step", "1", "--margin", "0.5")
    assert planned.returncode == 0 and records(planned)[0]["respondents"] == 385
    refused = run("plan", "--mechanism", "direct_number", "--epsilon", "1", "--lo", "0", "--hi", "10", "--step", "1",
                  "--margin", "0.5")
    assert refused.returncode == 2 and "argument --epsilon: not used by direct_number" in refused.stderr

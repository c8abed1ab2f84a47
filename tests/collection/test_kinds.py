"""The registry of question kinds (surveys.collection.kinds): every kind is whole, and the database,
the API and the admin's script take their kinds from it."""

import pytest
from django.template.loader import get_template

import ldp
from surveys.collection import kinds
from surveys.collection.models import Question


def test_every_kind_has_its_answer_template():
    for kind in kinds.KINDS:
        assert get_template(kind.template).origin.name.endswith(f"templates/collection/kinds/{kind.name}.html")


def test_every_kinds_fallback_mechanism_is_randomized():
    for kind in kinds.KINDS:
        assert ldp.MECHANISMS[kind.mechanisms[0]].randomized, kind


def test_every_mechanism_belongs_to_a_kind_and_the_figures_take_the_first():
    assert {name: kinds.of_mechanism(name).name for name in ldp.MECHANISMS} == {
        "qrr": "yes_no", "bitflip": "yes_no", "krr": "single_choice", "sue": "single_choice",
        "oue": "single_choice", "direct": "single_choice", "multiselect": "multi_select", "onebit": "numeric",
        "dlaplace": "numeric", "direct_number": "numeric"}


def test_the_database_and_the_api_take_their_kinds_from_the_registry():
    assert Question._meta.get_field("kind").choices == [(kind.name, kind.label) for kind in kinds.KINDS]
    assert kinds.NAMES == ["yes_no", "single_choice", "multi_select", "numeric", "ordinal"]
    assert [kinds.named(name) for name in kinds.NAMES] == list(kinds.KINDS)
    assert kinds.find("likert") is None


def test_the_admins_script_gets_each_kinds_mechanisms_and_boxes():
    assert kinds.kinds_config() == {
        "yes_no": {"mechanisms": ["qrr", "bitflip"], "options": False, "scale": False, "at_most": False,
                   "exclusive": False, "prefer_not": False},
        "single_choice": {"mechanisms": ["krr", "sue", "oue", "direct"], "options": True, "scale": False,
                          "at_most": False, "exclusive": False, "prefer_not": True},
        "multi_select": {"mechanisms": ["multiselect"], "options": True, "scale": False, "at_most": True,
                         "exclusive": True, "prefer_not": True},
        "numeric": {"mechanisms": ["onebit", "dlaplace", "krr", "direct_number"], "options": ["krr", "direct_number"],
                    "scale": True, "at_most": False, "exclusive": False, "prefer_not": False},
        "ordinal": {"mechanisms": ["krr", "sue", "oue"], "options": True, "scale": False, "at_most": False,
                    "exclusive": False, "prefer_not": True},
    }


def test_an_error_building_a_mechanism_is_shown_at_the_field_it_is_about():
    assert {name: kinds.error_field(name) for name in ldp.MECHANISMS} == {
        "qrr": "q", "bitflip": "epsilon", "krr": "epsilon", "sue": "epsilon", "oue": "epsilon",
        "direct": "mechanism_name", "multiselect": "at_most", "onebit": "epsilon", "dlaplace": "epsilon",
        "direct_number": "mechanism_name"}


def test_build_mechanism_refuses_a_kind_that_is_none():
    with pytest.raises(ValueError, match="^no kind of question is called 'likert'$"):
        kinds.build_mechanism("krr", "likert", None, 1.0, 3)

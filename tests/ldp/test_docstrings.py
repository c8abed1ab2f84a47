"""The examples in ldp's docstrings run, and say what they print."""

import doctest
import importlib
import pkgutil

import pytest

import ldp

MODULES = sorted(info.name for info in pkgutil.walk_packages(ldp.__path__, "ldp.") if info.name != "ldp.__main__")


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_its_docstrings_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_mechanisms_carry_runnable_examples():
    counted = [doctest.testmod(importlib.import_module(name)).attempted for name in MODULES]
    assert counted[MODULES.index("ldp.mechanisms.index")] >= 3 and counted[MODULES.index("ldp.mechanisms.base")] >= 2


def test_the_new_question_types_carry_runnable_examples():
    for name in ("ldp.mechanisms.multiselect", "ldp.mechanisms.onebit", "ldp.mechanisms.dlaplace",
                 "ldp.mechanisms.grid", "ldp.means.numeric", "ldp.means.ordinal", "ldp.offline.cells"):
        assert name in MODULES
        assert doctest.testmod(importlib.import_module(name)).attempted >= 3, name

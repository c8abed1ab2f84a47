"""The JavaScript tests' fixture is what ldp publishes now (regenerate: python -m tests.ldp.js_fixture)."""

import json

from tests.ldp.js_fixture import PATH, build


def test_the_javascript_fixture_is_current():
    assert json.loads(PATH.read_text()) == build(), "run: python -m tests.ldp.js_fixture"


def test_every_merged_cell_expects_enough_reports_for_the_g_test():
    for case in build()["cases"]:
        if "expected" in case:
            assert min(case["expected"]) * case["draws"] >= 5, case["name"]
            assert abs(sum(case["expected"]) - 1) < 1e-9 and len(case["edges"]) == len(case["expected"]) + 1

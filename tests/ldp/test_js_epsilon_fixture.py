"""The epsilon fixture of the JavaScript tests is what ldp computes now (regenerate:
python -m tests.ldp.js_epsilon_fixture)."""

import json

from tests.ldp.js_epsilon_fixture import PATH, build


def test_the_javascript_epsilon_fixture_is_current():
    assert json.loads(PATH.read_text()) == build(), "run: python -m tests.ldp.js_epsilon_fixture"

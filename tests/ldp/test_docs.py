"""The tutorial in docs/ldp.md runs as written, and says what it prints."""

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "ldp.md"


def test_the_tutorial_examples_hold():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0

"""Fixtures for the collection app's tests (the fixed cast lives in tests/conftest.py)."""

import pytest

from surveys.collection import submission
from tests.factories import valid_payload


@pytest.fixture
def responded(survey):
    """The `survey` fixture after one respondent has submitted: its mechanisms are now frozen."""
    receipt = submission.submit(survey, valid_payload(survey))
    assert receipt.created
    return survey


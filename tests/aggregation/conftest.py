import pytest

from tests.aggregation.support import add_responses


@pytest.fixture(params=[0, 1, 200], ids=["no-responses", "one-response", "many-responses"])
def sized_survey(request, survey):
    """The shared survey with 0, 1 or many randomized responses."""
    if request.param:
        add_responses(survey, request.param, seed=request.param)
    return survey

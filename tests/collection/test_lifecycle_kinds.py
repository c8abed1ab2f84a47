"""Opening a survey with the new kinds checks what only the options can tell: how many there are,
an at-most limit below them, bins that split the grid, levels with scores."""

from decimal import Decimal

import pytest

from surveys.collection import lifecycle
from surveys.collection.models import Option, Question, Survey
from tests.collection.helpers import question


@pytest.fixture
def draft(kinds_survey):
    Survey.objects.filter(pk=kinds_survey.pk).update(status=Survey.Status.DRAFT)
    return Survey.objects.get(pk=kinds_survey.pk)


def test_the_fixture_survey_of_every_new_kind_can_open(draft):
    assert lifecycle.problems(draft) == []
    lifecycle.open_survey(draft)
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.OPEN


@pytest.mark.slow
@pytest.mark.parametrize("edit, problem", [
    (lambda s: Question.objects.filter(pk=question(s, 1).pk).update(at_most=4),
     "question 1: its at-most limit (4) must be below its number of options (4)"),
    (lambda s: Option.objects.filter(question=question(s, 1), order__gt=0).delete(),
     "question 1 needs 2 to 32 options, has 1"),
    (lambda s: Option.objects.filter(question=question(s, 4), order=2).update(lower=Decimal(10)),
     "question 4: The lower edges must increase from one bin to the next."),
    (lambda s: Option.objects.filter(question=question(s, 4), order=0).update(lower=Decimal(1)),
     "question 4: The first bin must start at the smallest answer, 0."),
    (lambda s: Option.objects.filter(question=question(s, 5)).update(score=None),
     "question 5: its levels need scores"),
])
def test_opening_refuses_options_that_do_not_fit_their_kind(draft, edit, problem):
    edit(draft)
    assert problem in lifecycle.problems(draft)
    with pytest.raises(Exception, match="cannot open"):
        lifecycle.open_survey(draft)
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.DRAFT

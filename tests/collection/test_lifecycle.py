"""surveys.collection.lifecycle: budget checks, opening and closing (the admin's figures: test_admin)."""

import math
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

import ldp
from surveys.collection import lifecycle, plan
from surveys.collection.models import MAX_OPTIONS, Option, Question, Survey
from tests.collection.helpers import question


@pytest.fixture
def draft(survey):
    survey.status = Survey.Status.DRAFT
    survey.save()
    return survey


def test_check_budget_with_returns_the_total_with_the_question_as_edited(survey):
    edited = question(survey, 2)
    edited.epsilon = 2.0
    expected = math.fsum(m.effective_epsilon for m in (
        ldp.QRandomizedResponse("0.5"), ldp.BitFlip(2.0), ldp.KaryRR(1.0, 3), ldp.OptimizedUnary(1.0, 4)))
    assert lifecycle.check_budget_with(survey, edited) == pytest.approx(expected, abs=1e-12)


def test_check_budget_with_refuses_an_edit_over_the_budget(survey):
    edited = question(survey, 2)
    edited.epsilon = 4.0  # 1.0986 + 4 + 1 + 1 > 6
    with pytest.raises(ValidationError, match="Over the survey's privacy budget"):
        lifecycle.check_budget_with(survey, edited)


def test_check_budget_with_counts_a_new_yes_no_question(survey):
    new = Question(survey=survey, order=5, text="?", kind="yes_no", mechanism_name="bitflip", epsilon=2.0)
    with pytest.raises(ValidationError):
        lifecycle.check_budget_with(survey, new)  # 4.2 + 2 > 6
    new.epsilon = 1.0
    assert lifecycle.check_budget_with(survey, new) == pytest.approx(plan.of(survey).epsilon_total + 1.0, abs=1e-6)


def test_a_well_configured_survey_has_no_problems(survey):
    assert lifecycle.problems(survey) == []


def test_a_survey_without_questions_cannot_open(db):
    empty = Survey.objects.create(slug="empty", title="Empty")
    assert lifecycle.problems(empty) == ["it has no questions"]
    with pytest.raises(ValidationError, match="cannot open: it has no questions"):
        lifecycle.open_survey(empty)
    assert Survey.objects.get(pk=empty.pk).status == Survey.Status.DRAFT


@pytest.mark.parametrize("count", [0, 1])
def test_a_single_choice_question_needs_two_options_to_open(draft, count):
    krr = question(draft, 3)
    krr.options.filter(order__gte=count).delete()
    assert lifecycle.problems(draft) == [f"question 3 needs 2 to {MAX_OPTIONS} options, has {count}"]
    with pytest.raises(ValidationError):
        lifecycle.open_survey(draft)
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.DRAFT


def test_a_single_choice_question_with_too_many_options_cannot_open(draft):
    krr = question(draft, 3)
    for i in range(3, MAX_OPTIONS + 1):
        Option.objects.create(question=krr, order=i, label=f"option {i}")
    assert lifecycle.problems(draft) == [f"question 3 needs 2 to {MAX_OPTIONS} options, has {MAX_OPTIONS + 1}"]


def test_a_survey_over_its_budget_cannot_open(draft):
    Survey.objects.filter(pk=draft.pk).update(epsilon_budget=3.0)
    draft.refresh_from_db()
    total = math.fsum(m.effective_epsilon for m in plan.of(draft).mechanisms)
    assert lifecycle.problems(draft) == [f"its questions cost ε = {total:.4f}, over the budget 3"]
    with pytest.raises(ValidationError, match="over the budget"):
        lifecycle.open_survey(draft)
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.DRAFT


def test_a_question_with_a_bad_parameter_stops_opening(draft):
    Question.objects.filter(pk=question(draft, 2).pk).update(epsilon=50.0)  # bypasses save(), as old data might
    found = lifecycle.problems(draft)
    assert len(found) == 1 and found[0].startswith("question 2:") and "epsilon must lie in" in found[0]


def test_open_survey_opens_a_valid_draft_and_close_survey_closes_it(draft):
    lifecycle.open_survey(draft)
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.OPEN
    lifecycle.close_survey(draft)
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.CLOSED


def test_opening_and_closing_are_allowed_after_responses(responded):
    lifecycle.close_survey(responded)
    lifecycle.open_survey(responded)
    assert Survey.objects.get(pk=responded.pk).status == Survey.Status.OPEN
    assert question(responded, 1).q == Decimal("0.5")


# Opening a survey with multi-select, numeric and ordinal questions checks what only the options can tell:
# how many there are, an at-most limit below them, bins that split the grid, levels with scores.
@pytest.fixture
def kinds_draft(kinds_survey):
    Survey.objects.filter(pk=kinds_survey.pk).update(status=Survey.Status.DRAFT)
    return Survey.objects.get(pk=kinds_survey.pk)


def test_the_fixture_survey_of_every_kind_can_open(kinds_draft):
    assert lifecycle.problems(kinds_draft) == []
    lifecycle.open_survey(kinds_draft)
    assert Survey.objects.get(pk=kinds_draft.pk).status == Survey.Status.OPEN


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
def test_opening_refuses_options_that_do_not_fit_their_kind(kinds_draft, edit, problem):
    edit(kinds_draft)
    assert problem in lifecycle.problems(kinds_draft)
    with pytest.raises(Exception, match="cannot open"):
        lifecycle.open_survey(kinds_draft)
    assert Survey.objects.get(pk=kinds_draft.pk).status == Survey.Status.DRAFT

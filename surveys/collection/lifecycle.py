"""Survey verbs: checking a configuration, opening and closing."""

from __future__ import annotations

from django.core.exceptions import ValidationError

import ldp

from . import plan
from .models import MAX_OPTIONS, Question, Survey


def check_budget_with(survey: Survey, question: Question) -> float:
    """The survey's total epsilon if `question` is saved as it is now; refused over budget."""
    mechanisms = [question.mechanism()] + [
        other.mechanism() for other in survey.ordered_questions() if other.pk != question.pk
    ]
    try:
        return ldp.check_budget(mechanisms, survey.epsilon_budget)
    except ldp.BudgetExceeded as error:
        raise ValidationError(f"Over the survey's privacy budget: {error}.") from None


def problems(survey: Survey) -> list[str]:
    """What stops a survey from collecting responses, in words an admin can act on."""
    questions = list(survey.ordered_questions())
    if not questions:
        return ["it has no questions"]
    found = []
    for question in questions:
        k = question.k()
        if question.kind == Question.Kind.SINGLE_CHOICE and not 2 <= k <= MAX_OPTIONS:
            found.append(f"question {question.order} needs 2 to {MAX_OPTIONS} options, has {k}")
        try:
            question.full_clean(exclude=["survey"])
        except ValidationError as error:
            found.append(f"question {question.order}: {' '.join(error.messages)}")
    if not found:
        total = plan.of(survey).epsilon_total
        if total > survey.epsilon_budget:
            found.append(f"its questions cost ε = {total:.4f}, over the budget {survey.epsilon_budget:g}")
    return found


def open_survey(survey: Survey) -> None:
    found = problems(survey)
    if found:
        raise ValidationError(f"cannot open: {'; '.join(found)}")
    survey.status = Survey.Status.OPEN
    survey.save(update_fields=["status"])


def close_survey(survey: Survey) -> None:
    survey.status = Survey.Status.CLOSED
    survey.save(update_fields=["status"])

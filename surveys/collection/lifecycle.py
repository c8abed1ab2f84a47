"""Survey verbs: checking a configuration, opening and closing."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

import ldp

from . import kinds, languages, plan, replanning, skip_logic
from .models import MAX_OPTIONS, Question, Survey


def check_budget_with(survey: Survey, question: Question) -> float:
    """The survey's total epsilon if `question` is saved as it is now; refused over budget."""
    mechanisms = [question.mechanism()] + [
        other.mechanism() for other in survey.ordered_questions() if other.pk != question.pk
    ]
    try:
        return ldp.check_budget(mechanisms, survey.epsilon_budget)
    except ldp.BudgetExceeded as error:
        raise ValidationError(_("Over the survey's privacy budget: %(error)s.") % {"error": error}) from None


def problems(survey: Survey) -> list[str]:
    """What stops a survey from collecting responses, in words an admin can act on."""
    questions = list(survey.ordered_questions())
    if not questions:
        return [_("it has no questions")]
    # Retention that happens: its deletion date is known before anyone answers (respondents are told it).
    found = [] if survey.retention_days else [_("it has no retention period: set how many days its responses are "
                                                 "kept after it closes")]
    for question in questions:
        found += option_problems(question)
        try:
            question.full_clean(exclude=["survey"])
        except ValidationError as error:
            found.append(_("question %(n)s: %(problem)s") % {"n": question.order, "problem": " ".join(error.messages)})
        # Skip logic against the questions as they are now (a question renamed or moved since it was typed).
        wrong = question.relevant and skip_logic.question_problem(question)
        if wrong:
            found.append(_("question %(n)s: %(problem)s") % {"n": question.order, "problem": wrong})
    found += languages.missing(survey)  # every offered language complete: no respondent sees a gap
    found += margin_problems(survey)
    if not found:
        total = plan.of(survey).epsilon_total
        if total > survey.epsilon_budget:
            found.append(_("its questions cost ε = %(total)s, over the budget %(budget)s")
                         % {"total": f"{total:.4f}", "budget": f"{survey.epsilon_budget:g}"})
    return found


def margin_problems(survey: Survey) -> list[str]:
    """Population margins its weights could not be raked to (a question no longer sent as given, an option
    without a share): refused at Open rather than found when the figures are read."""
    from surveys.aggregation.weighting import margins  # results depend on collection, not the other way round

    return margins.stale(margins.stored(survey))


def option_problems(question: Question) -> list[str]:
    """A question's options (levels, bins): how many, and what the kind asks of them."""
    kind = kinds.kind_of(question)
    if not kind.has_options(question.mechanism_name):
        return []
    options = question.ordered_options()
    k = len(options)
    if k == 0 and kind.options_optional(question.mechanism_name):
        return []
    if not 2 <= k <= MAX_OPTIONS:
        return [_("question %(n)s needs 2 to %(max)s options, has %(k)s")
                % {"n": question.order, "max": MAX_OPTIONS, "k": k}]
    return kind.option_problems(question, options)


def open_survey(survey: Survey) -> None:
    found = problems(survey)
    if found:
        raise ValidationError(_("cannot open: %(problems)s") % {"problems": "; ".join(found)})
    if survey.status == Survey.Status.DRAFT:  # its first opening: before any report
        replanning.plan_at_open(survey)
    survey.status = Survey.Status.OPEN
    survey.closed_at = None  # reopened: retention counts from its next closing
    survey.save(update_fields=["status", "planned_size", "planned_confidence", "closed_at"])


def close_survey(survey: Survey) -> None:
    """Closed now: its retention period counts from this moment (or from an earlier closing time)."""
    survey.status = Survey.Status.CLOSED
    survey.closed_at = timezone.now()
    survey.save(update_fields=["status", "closed_at"])

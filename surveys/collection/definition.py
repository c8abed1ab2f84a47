"""The public definition of a survey: what the respondent's browser needs, nothing more."""

from __future__ import annotations

import ldp

from .models import Question, Survey


def mechanism_summary(mechanism: ldp.Mechanism) -> dict:
    """Parameters a person reads (effective epsilon, equivalent q, odds) and the integers a browser samples."""
    eps = mechanism.effective_epsilon
    return {
        **mechanism.to_dict(),
        "label": mechanism.label,
        "effective_epsilon": eps,
        "q_equivalent": ldp.q_from_epsilon(eps) if mechanism.name in ldp.YES_NO else None,
        "p": mechanism.p,
        "q_other": mechanism.q,
        "sampler": mechanism.sampler(),
        "deniability": ldp.deniability(mechanism),
    }


def question_definition(question: Question, mechanism: ldp.Mechanism) -> dict:
    return {
        "id": question.pk,
        "order": question.order,
        "text": question.text,
        "kind": question.kind,
        "options": question.labels(),
        "report": "bits" if mechanism.sampler()["kind"] == "unary" else "index",
        "mechanism": mechanism_summary(mechanism),
    }


def survey_definition(survey: Survey) -> dict:
    questions = list(survey.ordered_questions())
    mechanisms = [question.mechanism() for question in questions]
    return {
        "slug": survey.slug,
        "title": survey.title,
        "description": survey.description,
        "accepting_responses": survey.is_accepting(),
        "version": survey.mechanism_version(),
        "epsilon_total": ldp.survey_epsilon(mechanisms),
        "epsilon_budget": survey.epsilon_budget,
        "questions": [question_definition(q, m) for q, m in zip(questions, mechanisms)],
    }

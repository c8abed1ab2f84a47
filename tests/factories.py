"""Helpers shared by test modules (fixtures live in conftest.py)."""

import uuid

from django.contrib.auth import get_user_model

from surveys.collection import plan

PASSWORD = "correct horse battery staple"


def make_user(username, **extra):
    return get_user_model().objects.create_user(username=username, password=PASSWORD, **extra)


def valid_payload(survey, key=None, values=None):
    """A well-formed submission for `survey` (values: question order -> report)."""
    reports = {}
    for question in survey.ordered_questions():
        default = [0, 1] + [0] * (question.k() - 2) if question.mechanism_name in ("sue", "oue") else 0
        reports[str(question.pk)] = (values or {}).get(question.order, default)
    return {"version": plan.of(survey).version, "key": str(key or uuid.uuid4()), "reports": reports}

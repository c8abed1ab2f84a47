"""A question's permanent layer (waves of a series that remember randomization, `ldp.mechanisms.remembered`): the same
mechanism
with the permanent parameter, and what keeps one from being saved."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

import ldp
from ldp.mechanisms.remembered import Remembered

from ..kinds import build_mechanism
from .conditions import REMEMBERED_BY


def permanent_mechanism(question: Any) -> ldp.Mechanism:
    """The permanent layer: the question's own mechanism with the permanent parameter."""
    return build_mechanism(question.mechanism_name, question.kind, question.permanent_q, question.permanent_epsilon,
                           len(question.ordered_options()), scale=question.scale(), at_most=question.at_most)


def permanent_layer_errors(question: Any) -> dict[str, str]:
    """A permanent layer only for the one-answer mechanisms, by their own parameter, and one that builds."""
    if not question.has_permanent_layer():
        return {}
    field = "permanent_q" if question.mechanism_name in REMEMBERED_BY["q"] else "permanent_epsilon"
    other = "permanent_epsilon" if field == "permanent_q" else "permanent_q"
    if question.mechanism_name not in REMEMBERED_BY["q"] + REMEMBERED_BY["epsilon"]:
        return {other if getattr(question, other) is not None else field: _(
            "Only a randomized question with one answer (yes/no, single choice, ordinal levels, numeric bins) "
            "can remember its randomization.")}
    if getattr(question, other) is not None:
        return {other: _("This mechanism's permanent layer is set by the other field.")}
    options = max(len(question.ordered_options()), 2)
    try:
        Remembered(permanent=_built(question, question.permanent_q, question.permanent_epsilon, options),
                   instant=_built(question, question.q, question.epsilon, options))
    except (ValueError, TypeError) as error:
        return {field: str(error)}
    return {}


def _built(question: Any, q: Any, epsilon: float | None, options: int) -> ldp.Mechanism:
    return build_mechanism(question.mechanism_name, question.kind, q, epsilon, options, scale=question.scale(),
                           at_most=question.at_most)

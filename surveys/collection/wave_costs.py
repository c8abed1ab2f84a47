"""What running a survey again as a new wave costs, both ways, before the wave exists: with each question randomized
afresh in every wave, and with remembered randomization (the permanent layer `waves.run_again` would give it: its own,
or the question's own parameter). Per question, each way: one wave's privacy loss, what a respondent who keeps the
same answer reveals over the waves (afresh: it adds up, each wave its own loss; remembered: at most the permanent
layer's, however many waves), and the respondents for ±5 points at 95% as the estimates and the dashboard will plan
them (remembered: through both layers composed, `ldp.mechanisms.remembered.Composed`, which needs more of them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import ldp
from ldp.planning.rounding import loss_of

from . import figures, waves
from .kinds import build_mechanism
from .models import Question, Survey


@dataclass(frozen=True)
class Way:
    wave_epsilon: Decimal  # one wave's loss, rounded up
    every_wave_epsilon: Decimal | None  # all waves with the same answer (remembered), rounded up; None: adds up
    respondents: int  # for ±5 points at 95%


@dataclass(frozen=True)
class Cost:
    question: Question
    afresh: Way | None  # None: not randomized (sent as given)
    remembered: Way | None  # None: not randomized, or it cannot remember (the same as afresh)


def _up(epsilon: float) -> Decimal:
    """Rounded up to thousandths: never less than the loss."""
    return Decimal(math.ceil(epsilon * 1000)) / 1000


def _afresh(mechanism: ldp.Mechanism) -> Way:
    return Way(loss_of(mechanism.sampler()).epsilon_up(3), None, ldp.respondents_needed(mechanism, figures.MARGIN))


def _remembered(question: Question, instant: ldp.Mechanism) -> Way | None:
    """Through the permanent layer the new wave would have; None for a question that cannot remember one."""
    layer = waves.permanent_layer(question, True)
    permanent_q, permanent_epsilon = (layer.get("permanent_q", question.permanent_q),
                                      layer.get("permanent_epsilon", question.permanent_epsilon))
    if permanent_q is None and permanent_epsilon is None:
        return None
    permanent = build_mechanism(question.mechanism_name, question.kind, permanent_q,  # type: ignore[arg-type]
                                permanent_epsilon, len(question.ordered_options()),  # type: ignore[arg-type]
                                scale=question.scale(), at_most=question.at_most)
    layers = ldp.mechanisms.remembered.Remembered(permanent=permanent, instant=instant)
    return Way(_up(layers.wave_epsilon), loss_of(permanent.sampler()).epsilon_up(3),
               ldp.respondents_needed(ldp.mechanisms.remembered.composed(layers), figures.MARGIN))


def costs(survey: Survey) -> list[Cost]:
    """Each question's cost both ways, in order; a question whose layers cannot be built is left out (the survey
    cannot be opened until it is fixed)."""
    found = []
    for question in survey.ordered_questions():
        try:
            mechanism = question.mechanism()
            remembered = _remembered(question, mechanism) if mechanism.randomized else None
        except (ValueError, TypeError):
            continue
        found.append(Cost(question, _afresh(mechanism) if mechanism.randomized else None, remembered))
    return found

"""The conditions of the question table's check constraints, from the kinds and the mechanisms.

A condition names one kind (or mechanism) as `kind = x`, as the migrations wrote it, so that
generating it changes no SQL; several become `kind IN (...)`, which takes a migration.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

from django.db import models

import ldp

from .. import kinds
from ..kinds import KINDS


def for_kinds(rule: Callable[[kinds.Kind], bool], **rest: Any) -> models.Q:
    """The kinds the rule holds for, with `rest`: kind = x when one kind does (the SQL the migrations made)."""
    names = [kind.name for kind in KINDS if rule(kind)]
    return models.Q(**({"kind": names[0]} if len(names) == 1 else {"kind__in": names}), **rest)


# The mechanisms configured by q, and by nothing (not randomized); epsilon configures the others.
CONFIGURED_BY = {parameter: [name for name, mechanism in ldp.MECHANISMS.items() if mechanism.parameter == parameter]
                 for parameter in ("q", None)}


def configured_by(parameter: str | None, **rest: Any) -> models.Q:
    """The mechanisms `parameter` configures, with `rest`: mechanism_name = x when one (the migrations' SQL)."""
    names = CONFIGURED_BY[parameter]
    return models.Q(**({"mechanism_name": names[0]} if len(names) == 1 else {"mechanism_name__in": names}), **rest)


# The mechanisms that can remember a permanent layer across waves (`ldp.mechanisms.remembered`: one randomized answer
# of k),
# by the parameter that sets it.
REMEMBERED_BY = {parameter: [name for name, mechanism in ldp.MECHANISMS.items()
                             if mechanism.shape in (ldp.Shape.INDEX, ldp.Shape.BITS)
                             and mechanism.parameter == parameter]
                 for parameter in ("q", "epsilon")}


def permanent_layer_fits() -> models.Q:
    """No permanent layer, or one set by the parameter of a mechanism that can remember one."""
    return (models.Q(permanent_q__isnull=True, permanent_epsilon__isnull=True)
            | models.Q(mechanism_name__in=REMEMBERED_BY["q"], permanent_q__isnull=False, permanent_epsilon__isnull=True)
            | models.Q(mechanism_name__in=REMEMBERED_BY["epsilon"], permanent_q__isnull=True,
                       permanent_epsilon__isnull=False))


def question_constraints() -> list[models.BaseConstraint]:
    """The question table's check and unique constraints: its place, its lineage, and a mechanism, parameters and
    scale that fit its kind."""
    return [
        models.UniqueConstraint(fields=["survey", "order"], name="question_order_unique"),
        models.UniqueConstraint(fields=["survey", "lineage"], name="question_lineage_unique"),
        models.CheckConstraint(condition=permanent_layer_fits(), name="question_permanent_layer_fits"),
        models.CheckConstraint(
            condition=(configured_by("q", q__isnull=False, epsilon__isnull=True)
                       | configured_by(None, q__isnull=True, epsilon__isnull=True)
                       | (~models.Q(mechanism_name__in=[*CONFIGURED_BY["q"], *CONFIGURED_BY[None]])
                          & models.Q(q__isnull=True, epsilon__isnull=False))),
            name="question_has_its_parameter",
        ),
        models.CheckConstraint(
            condition=functools.reduce(operator.or_, (
                models.Q(kind=kind.name, mechanism_name__in=list(kind.mechanisms)) for kind in KINDS)),
            name="question_mechanism_fits_kind",
        ),
        models.CheckConstraint(
            condition=(for_kinds(lambda kind: kind.scale, lo__isnull=False, hi__isnull=False,
                                  step__isnull=False, lo__lt=models.F("hi"), step__gt=0)
                       | (~for_kinds(lambda kind: kind.scale) & models.Q(lo__isnull=True, hi__isnull=True,
                                                                          step__isnull=True))),
            name="question_numeric_has_its_scale",
        ),
        models.CheckConstraint(
            condition=models.Q(at_most__isnull=True) | for_kinds(lambda kind: kind.many, at_most__gte=1),
            name="question_at_most_for_multi_select",
        ),
    ]

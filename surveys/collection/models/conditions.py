"""The conditions of the question table's check constraints, from the kinds and the mechanisms.

A condition names one kind (or mechanism) as `kind = x`, as the migrations wrote it, so that
generating it changes no SQL; several become `kind IN (...)`, which takes a migration.
"""

from __future__ import annotations

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


# The mechanisms that can remember a permanent layer across waves (`ldp.waves`: one randomized answer of k),
# by the parameter that sets it.
REMEMBERED_BY = {parameter: [name for name, mechanism in ldp.MECHANISMS.items()
                             if mechanism.one_of_k and mechanism.randomized and mechanism.parameter == parameter]
                 for parameter in ("q", "epsilon")}


def permanent_layer_fits() -> models.Q:
    """No permanent layer, or one set by the parameter of a mechanism that can remember one."""
    return (models.Q(permanent_q__isnull=True, permanent_epsilon__isnull=True)
            | models.Q(mechanism_name__in=REMEMBERED_BY["q"], permanent_q__isnull=False, permanent_epsilon__isnull=True)
            | models.Q(mechanism_name__in=REMEMBERED_BY["epsilon"], permanent_q__isnull=True,
                       permanent_epsilon__isnull=False))

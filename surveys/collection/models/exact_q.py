"""q stored exactly: typed as a decimal ("0.5") or a fraction ("2/3"), kept as that text, a Fraction in Python.

A decimal column cannot hold 2/3 (six places made forced response's P(yes | yes) 0.8333335, not 5/6); the
text `ldp.mechanisms.exact_q.text` writes is the q the mechanism is built from and the version digest covers, so a q
that
was a decimal keeps its mechanism, its sampler's integers and its version (migration 0020).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.query_utils import DeferredAttribute
from django.utils.translation import gettext as _

from ldp.mechanisms import exact_q

MAX_LENGTH = 40  # every q the sampler carries fits: "n/d" with d <= 2^32, or a decimal of at most 28 digits


def invalid() -> ValidationError:
    return ValidationError(_("Enter q as a decimal (0.5) or a fraction (2/3)."), code="invalid")


def parsed(value: Any) -> Fraction | None:
    """A Fraction from what a form, a fixture or the database gives; ValidationError if it is no number."""
    if value is None or value == "":
        return None
    try:
        return exact_q.read(value)
    except (ValueError, TypeError):
        raise invalid() from None


def check_carried(value: Fraction) -> None:
    """The browser samples (1 + q)/2 as integers of at most 2^32: refuse a q they cannot carry exactly."""
    if not exact_q.carried(value):
        raise ValidationError(
            _("%(q)s cannot be sampled exactly: the browser samples (1 + q)/2 = %(p)s with whole numbers of at most "
              "2^32, so its denominator must be at most 2^32. Use a fraction with a denominator of at most 2^31, or "
              "a decimal with at most 9 places.") % {"q": exact_q.text(value), "p": exact_q.half_plus(value)},
            code="inexact")


class ExactQFormField(forms.Field):
    """A q box: "0.5" or "2/3" (spaces allowed), cleaned to a Fraction; shown as typed."""

    default_validators = [check_carried]

    def __init__(self, *, max_length: int | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("widget", forms.TextInput(attrs={"size": 12}))  # no decimal keypad: it has no "/"
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Fraction | None:
        return parsed(value.strip() if isinstance(value, str) else value)

    def prepare_value(self, value: Any) -> Any:
        return exact_q.text(value) if isinstance(value, Fraction) else value


class ExactQAttribute(DeferredAttribute):
    """Whatever is assigned (a Decimal, "2/3", a float) reads back as the Fraction that is saved; a value that is
    no number stays as given, for validation to name."""

    def __set__(self, instance: Any, value: Any) -> None:
        try:
            value = parsed(value)
        except ValidationError:
            pass
        instance.__dict__[self.field.attname] = value


class ExactQField(models.Field):
    """q as exact text in a varchar column; a Fraction in Python."""

    descriptor_class = ExactQAttribute
    default_validators = [check_carried]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", MAX_LENGTH)
        super().__init__(*args, **kwargs)

    def get_internal_type(self) -> str:
        return "CharField"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Fraction | None:
        return parsed(value)

    def to_python(self, value: Any) -> Fraction | None:
        return parsed(value)

    def get_prep_value(self, value: Any) -> str | None:
        found = parsed(value)
        return None if found is None else exact_q.text(found)

    def value_to_string(self, obj: models.Model) -> str:
        found = parsed(self.value_from_object(obj))
        return "" if found is None else exact_q.text(found)

    def formfield(self, **kwargs: Any) -> Any:
        return super().formfield(**{"form_class": ExactQFormField, **kwargs})

"""An answer option of a question (its level, or its bin): frozen with the question once its survey has reports."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from .. import kinds
from .frozen import FrozenMechanism, refuse_if_frozen


class Option(models.Model):
    """An answer option; an ordinal question's level (with its score), or a numeric histogram's bin
    (with its lower edge)."""

    # exclusive too: responses before and after a change would answer different questions; name: skip logic compares it.
    FROZEN_FIELDS = ("question_id", "order", "label", "score", "lower", "exclusive", "name")

    question = models.ForeignKey("Question", on_delete=models.CASCADE, related_name="options")
    order = models.PositiveIntegerField(default=1)
    label = models.CharField(max_length=200)
    # Its XLSForm choice name, what skip-logic conditions compare a direct answer with (blank: from its label,
    # `skip_logic.choice_names`).
    name = models.CharField(_("choice name"), max_length=64, blank=True, default="")
    score = models.DecimalField("score", max_digits=15, decimal_places=6, null=True, blank=True,
                                help_text=_("Ordinal questions: the level's score (blank: left out of the mean score, "
                                          "e.g. “Prefer not to say”)."))
    lower = models.DecimalField("lower edge", max_digits=15, decimal_places=6, null=True, blank=True,
                                help_text=_("Numeric questions with bins: the bin's smallest answer."))
    exclusive = models.BooleanField(
        _("exclusive"), default=False,
        help_text=_("Multi-select questions: ticked alone, such as “None of these”; ticking it unticks the others, and "
                    "ticking another unticks it (in the respondent's browser, before randomizing)."))

    class Meta:
        ordering = ["question", "order"]
        constraints = [
            models.UniqueConstraint(fields=["question", "order"], name="option_order_unique"),
            models.CheckConstraint(condition=models.Q(score__isnull=True) | models.Q(lower__isnull=True),
                                   name="option_score_or_lower_edge"),
        ]

    def __str__(self) -> str:
        return self.label

    def clean(self) -> None:
        kind = kinds.find(self.question.kind) if self.question_id is not None else None
        if self.exclusive and kind is not None and not kind.many:
            raise ValidationError({"exclusive": kind.exclusive_problem([True])})

    def save(self, *args: Any, **kwargs: Any) -> None:
        refuse_if_frozen(self, Option, self.FROZEN_FIELDS, lambda o: o.question.survey)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        if self.question.survey.has_reports():
            raise FrozenMechanism("This survey has reports; its options cannot be deleted.")
        return super().delete(*args, **kwargs)

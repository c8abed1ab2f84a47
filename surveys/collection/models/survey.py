"""Survey definitions: surveys, their questions (each with its mechanism) and options.

Once a survey has a report, what determines how reports are made and read is frozen.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone

import ldp

MAX_OPTIONS = 32  # unary reports are stored as a bitmask in a 64-bit integer
YES_NO_LABELS = ("No", "Yes")  # report value 1 means yes
PARAMETER_OF = {"qrr": "q", "direct": "mechanism_name"}  # the field an error of building the mechanism is about


class FrozenMechanism(ValidationError):
    """The survey has reports: its questions and parameters can no longer change."""


class SurveyQuerySet(models.QuerySet):
    def published(self) -> SurveyQuerySet:
        """Surveys respondents may see: open or closed, never drafts."""
        return self.exclude(status=Survey.Status.DRAFT)

    def visible_to(self, user: Any) -> SurveyQuerySet:
        """Surveys whose results `user` may see: assigned researchers, and superusers."""
        if not user.is_authenticated or not user.is_active:
            return self.none()
        return self if user.is_superuser else self.filter(researchers=user)


class Survey(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    class Access(models.TextChoices):
        LINK = "link", "Anyone with the link"
        INVITATION = "invitation", "Invitation links only (each works once)"

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    opens_at = models.DateTimeField(null=True, blank=True, help_text="Optional; UTC.")
    closes_at = models.DateTimeField(null=True, blank=True, help_text="Optional; UTC.")
    epsilon_budget = models.FloatField(
        default=3.0,
        validators=[MinValueValidator(ldp.EPSILON_MIN), MaxValueValidator(100.0)],
        help_text="Most privacy loss one respondent may incur on this survey: the sum of its "
                  "questions' epsilons.",
    )
    access = models.CharField(max_length=12, choices=Access.choices, default=Access.LINK)
    researchers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="visible_surveys",
        help_text="Who may see this survey's results.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SurveyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(closes_at__isnull=True) | models.Q(opens_at__isnull=True)
                | models.Q(closes_at__gt=models.F("opens_at")),
                name="survey_closes_after_it_opens",
            ),
            models.CheckConstraint(condition=models.Q(epsilon_budget__gt=0), name="survey_budget_positive"),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        """The respondent's page once published; a draft's staff-only preview before that."""
        name = "collection:preview" if self.status == self.Status.DRAFT else "collection:respond"
        return reverse(name, args=[self.slug])

    def clean(self) -> None:
        if self.opens_at and self.closes_at and self.closes_at <= self.opens_at:
            raise ValidationError({"closes_at": "A survey must close after it opens."})

    def has_reports(self) -> bool:
        return self.pk is not None and self.responses.exists()

    def is_accepting(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        return (
            self.status == self.Status.OPEN
            and (self.opens_at is None or self.opens_at <= now)
            and (self.closes_at is None or now < self.closes_at)
        )

    def ordered_questions(self) -> models.QuerySet[Question]:
        return self.questions.order_by("order").prefetch_related("options")


class Question(models.Model):
    class Kind(models.TextChoices):
        YES_NO = "yes_no", "Yes / no"
        SINGLE_CHOICE = "single_choice", "Single choice"

    class MechanismName(models.TextChoices):
        QRR = "qrr", "q-randomized response (yes/no)"
        BITFLIP = "bitflip", "Epsilon bit flip (yes/no)"
        KRR = "krr", "k-ary randomized response (single choice)"
        SUE = "sue", "Symmetric unary encoding (single choice)"
        OUE = "oue", "Optimized unary encoding (single choice)"
        DIRECT = "direct", "Not randomized (direct)"

    FROZEN_FIELDS = ("survey_id", "order", "text", "kind", "mechanism_name", "q", "epsilon")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    order = models.PositiveIntegerField(default=1)
    text = models.CharField(max_length=500)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.YES_NO)
    mechanism_name = models.CharField("mechanism", max_length=10, choices=MechanismName.choices,
                                      default=MechanismName.QRR)
    q = models.DecimalField(
        max_digits=7, decimal_places=6, null=True, blank=True,
        help_text="q-randomized response only: the probability of answering truthfully "
                  "(otherwise a fair coin answers). 0.5 gives epsilon = ln 3.",
    )
    epsilon = models.FloatField(null=True, blank=True, help_text="All other randomized mechanisms "
                                                                 "(a direct question takes neither).")

    class Meta:
        ordering = ["survey", "order"]
        constraints = [
            models.UniqueConstraint(fields=["survey", "order"], name="question_order_unique"),
            models.CheckConstraint(
                condition=(models.Q(mechanism_name="qrr", q__isnull=False, epsilon__isnull=True)
                           | models.Q(mechanism_name="direct", q__isnull=True, epsilon__isnull=True)
                           | (~models.Q(mechanism_name__in=["qrr", "direct"])
                              & models.Q(q__isnull=True, epsilon__isnull=False))),
                name="question_has_its_parameter",
            ),
            models.CheckConstraint(
                condition=(models.Q(kind="yes_no", mechanism_name__in=["qrr", "bitflip"])
                           | models.Q(kind="single_choice", mechanism_name__in=["krr", "sue", "oue", "direct"])),
                name="question_mechanism_fits_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.order}. {self.text}"

    def ordered_options(self) -> list[Option]:
        if self.pk is None:  # an unsaved question has no options yet
            return []
        return sorted(self.options.all(), key=lambda option: option.order)

    def labels(self) -> list[str]:
        if self.kind == self.Kind.YES_NO:
            return list(YES_NO_LABELS)
        return [option.label for option in self.ordered_options()]

    def k(self) -> int:
        return 2 if self.kind == self.Kind.YES_NO else len(self.ordered_options())

    def mechanism(self) -> ldp.Mechanism:
        """The ldp mechanism; raises ValueError with a readable message if it cannot be built."""
        return build_mechanism(self.mechanism_name, self.kind, self.q, self.epsilon, len(self.ordered_options()))

    def clean(self) -> None:
        errors = self._mechanism_errors()
        if not errors:
            try:
                self.mechanism()
            except (ValueError, TypeError) as error:
                errors[PARAMETER_OF.get(self.mechanism_name, "epsilon")] = str(error)
        if errors:
            raise ValidationError(errors)

    def _mechanism_errors(self) -> dict[str, str]:
        """What does not fit: the mechanism for the kind of question, and its parameter, in words."""
        errors = {}
        yes_no = self.kind == self.Kind.YES_NO
        if self.mechanism_name == self.MechanismName.DIRECT:
            if yes_no:
                errors["mechanism_name"] = (
                    "Only single-choice questions can be asked directly (not randomized), for covariates "
                    "such as an age band or a region; a yes/no question is always randomized.")
            if self.q is not None or self.epsilon is not None:
                errors["epsilon" if self.epsilon is not None else "q"] = (
                    "Leave q and epsilon empty for a direct question: it is not randomized, its answer is "
                    "sent as given.")
            return errors
        if yes_no != (self.mechanism_name in ldp.YES_NO):
            errors["mechanism_name"] = (
                "Yes/no questions use q-randomized response or the epsilon bit flip; "
                "single-choice questions use k-ary randomized response, a unary encoding, or no "
                "randomization (direct)."
            )
        if self.mechanism_name == "qrr":
            if self.q is None:
                errors["q"] = "q-randomized response needs q."
            if self.epsilon is not None:
                errors["epsilon"] = "Leave epsilon empty for q-randomized response; q sets it."
        else:
            if self.epsilon is None:
                errors["epsilon"] = "This mechanism needs epsilon."
            if self.q is not None:
                errors["q"] = "q is only for q-randomized response."
        return errors

    def save(self, *args: Any, **kwargs: Any) -> None:
        _refuse_if_frozen(self, Question, self.FROZEN_FIELDS, lambda q: q.survey)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        if self.survey.has_reports():
            raise FrozenMechanism("This survey has reports; its questions cannot be deleted.")
        return super().delete(*args, **kwargs)


def build_mechanism(name: str, kind: str, q: Decimal | None, epsilon: float | None, options: int) -> ldp.Mechanism:
    """A question's mechanism from its fields and number of options (ValueError if it cannot be)."""
    if name == "direct":
        if kind != Question.Kind.SINGLE_CHOICE:
            raise ValueError("only single-choice questions can be asked directly (not randomized)")
        if q is not None or epsilon is not None:
            raise ValueError("a direct question takes neither q nor epsilon: it is not randomized")
        # A single-choice question without its options yet is judged as if it had two.
        return ldp.make("direct", k=max(options, 2))
    if name == "qrr":
        if q is None:
            raise ValueError("q-randomized response needs q")
        return ldp.QRandomizedResponse(Fraction(str(Decimal(q).normalize())))
    if epsilon is None:
        raise ValueError(f"{Question.MechanismName(name).label} needs epsilon")
    # A single-choice question without its options yet is judged as if it had two.
    k = 2 if kind == Question.Kind.YES_NO else max(options, 2)
    return ldp.make(name, k=k, epsilon=epsilon)


class Option(models.Model):
    FROZEN_FIELDS = ("question_id", "order", "label")

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="options")
    order = models.PositiveIntegerField(default=1)
    label = models.CharField(max_length=200)

    class Meta:
        ordering = ["question", "order"]
        constraints = [
            models.UniqueConstraint(fields=["question", "order"], name="option_order_unique"),
        ]

    def __str__(self) -> str:
        return self.label

    def save(self, *args: Any, **kwargs: Any) -> None:
        _refuse_if_frozen(self, Option, self.FROZEN_FIELDS, lambda o: o.question.survey)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        if self.question.survey.has_reports():
            raise FrozenMechanism("This survey has reports; its options cannot be deleted.")
        return super().delete(*args, **kwargs)


def _refuse_if_frozen(obj: Any, model: type[models.Model], fields: tuple[str, ...],
                      survey_of: Callable[[Any], Survey]) -> None:
    """Debiasing must use the parameters the reports were made with, so they never change."""
    if obj.pk is None:
        if survey_of(obj).has_reports():
            raise FrozenMechanism("This survey has reports; nothing can be added to it.")
        return
    old = model._default_manager.filter(pk=obj.pk).first()
    if old is None:
        return
    changed = any(getattr(old, name) != getattr(obj, name) for name in fields)
    if changed and (survey_of(old).has_reports() or survey_of(obj).has_reports()):
        raise FrozenMechanism("This survey has reports; its questions and parameters are read-only.")

"""Survey definitions: surveys and their questions (each with its mechanism); options are in `option.py`.

Once a survey has a report, what determines how reports are made and read is frozen.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

import ldp
from ldp.mechanisms.remembered import Remembered

from .. import kinds, relevance, scales, variable_names
from ..kinds import KINDS, build_mechanism, yes_no
from ..kinds.mechanism_names import NAMES  # the translated mechanism names, one table
from . import remembering
from .conditions import question_constraints
from .exact_q import ExactQField
from .frozen import FrozenMechanism, refuse_if_frozen, refuse_moving_a_wave
from .option import Option
from .series import Series

YES_NO_LABELS = yes_no.KIND.fixed_labels  # report value 1 means yes


class SurveyQuerySet(models.QuerySet):
    def published(self) -> SurveyQuerySet:
        """Surveys respondents may see: open or closed, never drafts."""
        return self.exclude(status=Survey.Status.DRAFT)

    def visible_to(self, user: Any) -> SurveyQuerySet:
        """Surveys whose results `user` may see: assigned researchers, and superusers."""
        if not user.is_authenticated or not user.is_active:
            return self.none()
        return self if user.is_superuser else self.filter(researchers=user)


def interface_languages() -> list[tuple[str, str]]:
    """The languages a survey can be in: the interface's own (a callable, so a migration does not copy the list)."""
    return [(code, str(name)) for code, name in settings.LANGUAGES]


class Survey(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    class Access(models.TextChoices):
        LINK = "link", _("Anyone with the link")
        INVITATION = "invitation", _("Invitation links only (each works once)")

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    language = models.CharField(max_length=10, choices=interface_languages, default="en",
                                help_text=_("The language of the texts on this page; other languages are "
                                              "translations."))
    consent = models.TextField(blank=True, help_text=_("Optional: shown before the questions; nobody can answer "
                                                       "before agreeing to it. Nothing about the agreement is stored."))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    opens_at = models.DateTimeField(null=True, blank=True, help_text=_("Optional; UTC."))
    closes_at = models.DateTimeField(null=True, blank=True, help_text=_("Optional; UTC."))
    epsilon_budget = models.FloatField(
        default=3.0,
        validators=[MinValueValidator(ldp.EPSILON_MIN), MaxValueValidator(100.0)],
        help_text=_("Most privacy loss one respondent may incur on this survey: the sum of its "
                  "questions' epsilons."),
    )
    access = models.CharField(max_length=12, choices=Access.choices, default=Access.LINK)
    researchers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="visible_surveys",
        help_text=_("Who may see this survey's results."),
    )
    series = models.ForeignKey(Series, on_delete=models.PROTECT, null=True, blank=True, related_name="waves",
                               help_text=_("Optional: the series this survey is a wave of."))
    wave = models.PositiveIntegerField(null=True, blank=True, help_text=_("Its number in the series: 1, 2, ..."))
    # The confidence sequences' planned size, fixed before anyone looks (ldp.sequences.fractions: the guarantee holds
    # for a
    # size chosen in advance); blank until Open sets the planner's figure. Changed after the first report only with
    # a reason (surveys/collection/replanning.py), kept with the number of responses then.
    planned_size = models.PositiveIntegerField(
        _("planned size"), null=True, blank=True, validators=[MinValueValidator(1)],
        help_text=_("Respondents the intervals valid however often you look are planned for (narrowest there). "
                    "Blank: the planner's figure for ±5 points at the planned confidence, set when the survey opens."))
    planned_confidence = models.FloatField(
        _("planned confidence"), null=True, blank=True, validators=[MinValueValidator(0.5), MaxValueValidator(0.999)],
        help_text=_("The confidence the planned size is figured at. Blank: 95%, set when the survey opens."))
    replanned_at = models.PositiveIntegerField(_("re-planned at n"), null=True, blank=True, editable=False)
    replan_reason = models.TextField(_("reason for re-planning"), blank=True, editable=False)
    # Retention (surveys.collection.retention): required at Open, counted from the day collection ended.
    retention_days = models.PositiveIntegerField(
        _("retention period (days)"), null=True, blank=True, validators=[MinValueValidator(1)],
        help_text=_("Required to open: the responses are deleted this many days after the survey closes (the Close "
                    "button or the closing time, whichever comes first). Respondents are told before they answer."))
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True, editable=False)
    purged_at = models.DateTimeField(_("responses deleted at"), null=True, blank=True, editable=False)
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
            models.CheckConstraint(condition=models.Q(series__isnull=True, wave__isnull=True)
                                   | models.Q(series__isnull=False, wave__gte=1), name="survey_wave_of_a_series"),
            models.UniqueConstraint(fields=["series", "wave"], name="survey_wave_unique"),
        ]

    def __str__(self) -> str:  # the admin's lists, filters, choices and messages
        return self.listed_title

    @property
    def listed_title(self) -> str:
        """Its title, and its wave's number in a series: the waves of a series share their title."""
        return self.title if self.wave is None else _("%(survey)s, wave %(wave)s") % {"survey": self.title,
                                                                                      "wave": self.wave}

    def get_absolute_url(self) -> str:
        """The respondent's page once published; a draft's staff-only preview before that."""
        name = "collection:preview" if self.status == self.Status.DRAFT else "collection:respond"
        return reverse(name, args=[self.slug])

    def clean(self) -> None:
        if self.opens_at and self.closes_at and self.closes_at <= self.opens_at:
            raise ValidationError({"closes_at": "A survey must close after it opens."})

    def save(self, *args: Any, **kwargs: Any) -> None:
        refuse_moving_a_wave(self)
        super().save(*args, **kwargs)

    def has_reports(self) -> bool:
        return self.pk is not None and self.responses.exists()

    def remembers(self) -> bool:
        """Whether its questions with a permanent layer remember it (a wave of a series that remembers)."""
        return self.series_id is not None and self.series is not None and self.series.remembered

    def is_accepting(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        return (
            self.status == self.Status.OPEN
            and (self.opens_at is None or self.opens_at <= now)
            and (self.closes_at is None or now < self.closes_at)
        )

    def opens_later(self, now: datetime | None = None) -> bool:
        """Open, but its opening date is still to come (its link says when it opens)."""
        return self.status == self.Status.OPEN and self.opens_at is not None and (now or timezone.now()) < self.opens_at

    def ordered_questions(self) -> models.QuerySet[Question]:
        return self.questions.order_by("order").prefetch_related("options")


class Question(models.Model):
    class MechanismName(models.TextChoices):
        QRR = "qrr", NAMES["qrr"].choice
        BITFLIP = "bitflip", NAMES["bitflip"].choice
        KRR = "krr", NAMES["krr"].choice
        SUE = "sue", NAMES["sue"].choice
        OUE = "oue", NAMES["oue"].choice
        DIRECT = "direct", NAMES["direct"].choice
        MULTISELECT = "multiselect", NAMES["multiselect"].choice
        ONEBIT = "onebit", NAMES["onebit"].choice
        DLAPLACE = "dlaplace", NAMES["dlaplace"].choice
        DIRECT_NUMBER = "direct_number", NAMES["direct_number"].choice

    FROZEN_FIELDS = ("survey_id", "order", "text", "kind", "mechanism_name", "q", "epsilon", "lo", "hi", "step",
                     "at_most", "permanent_q", "permanent_epsilon", "lineage", "relevant")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    order = models.PositiveIntegerField(default=1)
    text = models.CharField(max_length=500)
    # Its column's name in every export and its key everywhere (surveys.collection.variable_names); blank: q<order>.
    name = models.CharField(
        _("name"), max_length=32, blank=True, default="",
        help_text=_("Optional: the question's column in the exports and its key in the figures, such as age "
                    "(a letter, then letters, digits or _). Blank: q and its position, such as q5."))
    hint = models.CharField(_("hint"), max_length=500, blank=True,
                            help_text=_("Optional: a few words shown under the question."))
    # Skip logic (surveys/collection/relevance.py): asked only when this holds for the direct answers above it.
    relevant = models.CharField(
        _("asked only if"), max_length=1000, blank=True, default="",
        help_text=_("Optional skip logic, as XLSForm's relevant column: a condition on earlier questions asked "
                    "directly (not randomized), such as ${has_children} = 'yes' and ${age} >= 18. Blank: asked of "
                    "everyone."))
    kind = models.CharField(max_length=16, choices=kinds.CHOICES, default=KINDS[0].name)
    mechanism_name = models.CharField("mechanism", max_length=16, choices=MechanismName.choices,
                                      default=MechanismName.QRR)
    q = ExactQField(
        null=True, blank=True,
        help_text=_("q-randomized response only: the probability of answering truthfully "
                    "(otherwise a fair coin answers), as a decimal or an exact fraction. 0.5 gives epsilon = ln 3; "
                    "2/3 is forced response with 1/6 forced yes and 1/6 forced no."),
    )
    epsilon = models.FloatField(null=True, blank=True, help_text=_("All other randomized mechanisms "
                                                                 "(a direct question takes neither)."))
    lo = models.DecimalField("lo", max_digits=15, decimal_places=6, null=True, blank=True,
                             help_text=_("Numeric questions: the smallest answer."))
    hi = models.DecimalField("hi", max_digits=15, decimal_places=6, null=True, blank=True,
                             help_text=_("Numeric questions: the largest answer."))
    step = models.DecimalField("step", max_digits=15, decimal_places=6, null=True, blank=True,
                               help_text=_("Numeric questions: answers are lo, lo + step, ... hi (a whole number of "
                                         "steps)."))
    at_most = models.PositiveSmallIntegerField(
        "at most", null=True, blank=True,
        help_text=_("Multi-select questions: at most this many ticks (blank: any number). A limit m below half "
                  "the options lowers the privacy cost: two answers then differ in at most 2m boxes."))
    # The same question in every wave of a series ("Run again as a new wave" copies it): results across
    # waves match questions by it, and the browser derives a permanent response from it.
    lineage = models.UUIDField(default=uuid.uuid4, editable=False)
    permanent_q = ExactQField(
        null=True, blank=True,
        help_text=_("Waves of a series that remembers randomization, q-randomized response: q of the permanent "
                    "layer, remembered across waves (q or epsilon above is then each wave's fresh layer). Blank: "
                    "not remembered."))
    permanent_epsilon = models.FloatField(
        null=True, blank=True,
        help_text=_("Waves of a series that remembers randomization, other one-answer mechanisms: epsilon of the "
                    "permanent layer, remembered across waves. Blank: not remembered."))

    class Meta:
        ordering = ["survey", "order"]
        constraints = question_constraints()

    def __str__(self) -> str:
        return f"{self.order}. {self.text}"

    def ordered_options(self) -> list[Option]:
        if self.pk is None:  # an unsaved question has no options yet
            return []
        return sorted(self.options.all(), key=lambda option: option.order)

    def labels(self) -> list[str]:
        return kinds.kind_of(self).labels([option.label for option in self.ordered_options()])

    def k(self) -> int:
        """Answers (options, levels, bins); a numeric question asked for its mean: its mechanism's k."""
        kind = kinds.kind_of(self)
        if kind.fixed_labels:
            return len(kind.fixed_labels)
        if not kind.has_options(self.mechanism_name):
            return self.mechanism().k
        return len(self.ordered_options())

    def scale(self) -> scales.Scale | None:
        """A numeric question's grid (None for other kinds, or when lo, hi and step do not make one)."""
        return scales.scale_of(self.lo, self.hi, self.step) if kinds.kind_of(self).scale else None

    def mechanism(self) -> ldp.Mechanism:
        """The ldp mechanism; raises ValueError with a readable message if it cannot be built."""
        return build_mechanism(self.mechanism_name, self.kind, self.q, self.epsilon, len(self.ordered_options()),
                               scale=self.scale(), at_most=self.at_most)

    def remembered(self) -> Remembered | None:
        """Its two layers when its survey remembers randomization and it has a permanent layer, else None
        (each wave's reports are then its mechanism's alone); ValueError as `mechanism()`."""
        if not self.has_permanent_layer() or not self.survey.remembers():
            return None
        return Remembered(permanent=remembering.permanent_mechanism(self), instant=self.mechanism())

    def has_permanent_layer(self) -> bool:
        return self.permanent_q is not None or self.permanent_epsilon is not None

    def clean(self) -> None:
        others = [] if self.survey_id is None else (
            Question.objects.filter(survey_id=self.survey_id).exclude(pk=self.pk).values_list("name", flat=True))
        wrong = variable_names.problem(self.name, others)
        if wrong:
            raise ValidationError({"name": wrong})
        kind = kinds.find(self.kind)
        if kind is None:
            return  # the field's own validation says the kind is none
        errors = (kind.mechanism_errors(self.mechanism_name, self.q, self.epsilon)
                  or kind.shape_errors(self.lo, self.hi, self.step, self.at_most))
        if not errors:
            try:
                # Options typed with the question are not saved yet: judged as if there were enough
                # for its at-most limit (the form and the Open action check the real number).
                options = max(len(self.ordered_options()), (self.at_most or 0) + 1)
                build_mechanism(self.mechanism_name, self.kind, self.q, self.epsilon, options, scale=self.scale(),
                                at_most=self.at_most)
            except (ValueError, TypeError) as error:
                errors[kinds.error_field(self.mechanism_name)] = str(error)
        if not errors:
            errors = remembering.permanent_layer_errors(self)
        if not errors and self.relevant.strip():
            # Read here; what it refers to is checked with the other questions as they will be saved (the admin's
            # formset and question form, the import): `skip_logic.problem`.
            try:
                relevance.parse(self.relevant)
            except relevance.ConditionError as error:
                errors = {"relevant": _("the condition cannot be read: %(error)s") % {"error": error}}
        if errors:
            raise ValidationError(errors)

    def save(self, *args: Any, **kwargs: Any) -> None:
        refuse_if_frozen(self, Question, self.FROZEN_FIELDS, lambda q: q.survey)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        if self.survey.has_reports():
            raise FrozenMechanism("This survey has reports; its questions cannot be deleted.")
        return super().delete(*args, **kwargs)

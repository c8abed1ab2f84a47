"""A report export prepared whole before it is downloaded (surveys.aggregation.exports.prepared), and the population
margins a survey's weights are raked to (surveys.aggregation.weighting.weights).

The file itself lives in the private export directory (surveys.aggregation.exports.store); the row
says how far its preparation has got and, once it is ready, what the file holds: its rows, bytes and
SHA-256, and the codebook that describes exactly those responses.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from surveys.collection.models import Option, Question, Survey


class PreparedExport(models.Model):
    class Format(models.TextChoices):
        CSV = "csv", "reports.csv"
        JSON = "json", "reports.json"
        STATA = "dta", "reports.dta"
        SPSS = "sav", "reports.sav"
        RELEASE = "rel", "release.csv"  # chosen questions' reports, shuffled (surveys.aggregation.exports.release)
        SYNTHETIC = "syn", "synthetic.csv"  # synthetic respondents (aggregation.synthetic), not reports
        SYNTHETIC_STATA = "sdta", "synthetic.dta"
        SYNTHETIC_SPSS = "ssav", "synthetic.sav"

    class Status(models.TextChoices):
        PREPARING = "preparing"
        READY = "ready"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="prepared_exports", db_index=False)
    format = models.CharField(max_length=4, choices=Format.choices)
    # Which file of its format: the shuffled release's chosen question ids ("3,5"); "" for the report exports.
    variant = models.CharField(max_length=200, blank=True, default="")
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.PREPARING)
    # A preparation whose worker died is taken over with attempt + 1; only the current attempt may finish it.
    attempt = models.PositiveIntegerField(default=1)
    # What it was made from, to tell when it is stale: the number of responses in its snapshot and a
    # digest of the survey's codebook then (questions, mechanisms, title, status, client code).
    responses = models.PositiveIntegerField(null=True)
    basis = models.CharField(max_length=64, blank=True)
    rows = models.PositiveIntegerField(default=0)  # written so far; once ready, the file's
    bytes = models.BigIntegerField(null=True)
    sha256 = models.CharField(max_length=64, blank=True)
    codebook = models.TextField(blank=True)  # the codebook of exactly these rows, as served
    as_of = models.DateTimeField(null=True)  # when its snapshot was taken
    created_at = models.DateTimeField()
    heartbeat_at = models.DateTimeField()  # the preparing thread says it is alive every few seconds
    finished_at = models.DateTimeField(null=True)
    expires_at = models.DateTimeField(null=True)

    class Meta:
        constraints = [
            # Two workers asked at once start one preparation: the second one's insert is refused.
            models.UniqueConstraint(fields=["survey", "format", "variant"], condition=Q(status="preparing"),
                                    name="one_preparation_per_export"),
        ]
        indexes = [models.Index(fields=["survey", "format", "status"], name="prepared_export_lookup")]

    def __str__(self) -> str:
        return f"{self.get_format_display()} of survey {self.survey_id} ({self.status})"


class PopulationMargin(models.Model):
    """The population's shares of one direct question's options, and where they come from (a census table):
    what the survey's weights are raked to (surveys.aggregation.weighting.weights). Only a question sent as given can
    have one: a randomized answer says nothing about one respondent's category."""

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="population_margin",
                                    verbose_name=_("question"))
    source = models.CharField(_("source"), max_length=200,
                              help_text=_("Where the shares come from, e.g. “Census 2021, table P12”."))

    class Meta:
        verbose_name = _("population margin")
        verbose_name_plural = _("population margins")

    def __str__(self) -> str:
        return f"{self.question} ({self.source})"


class MarginShare(models.Model):
    """One option's share of the population."""

    margin = models.ForeignKey(PopulationMargin, on_delete=models.CASCADE, related_name="shares")
    option = models.OneToOneField(Option, on_delete=models.CASCADE, related_name="population_share",
                                  verbose_name=_("option"))
    share = models.DecimalField(_("share"), max_digits=7, decimal_places=6,
                                validators=[MinValueValidator(Decimal("0.000001"),
                                                              _("A share must be above 0: nobody can be weighted "
                                                                "to a group the population does not have.")),
                                            MaxValueValidator(1, _("A share is at most 1."))],
                                help_text=_("The option's share of the population, above 0 and at most 1."))

    class Meta:
        verbose_name = _("share")
        verbose_name_plural = _("shares")
        constraints = [models.CheckConstraint(condition=Q(share__gt=0) & Q(share__lte=1),
                                              name="margin_share_in_range")]

    def __str__(self) -> str:
        return f"{self.option}: {self.share}"

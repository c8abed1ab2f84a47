"""Running counts of each question's stored values by the cell of a few key questions, for the weighted figures
(`surveys.collection.cell_tallies` writes and reads them).

A weighted figure needs, for each question, how many responses of each cell of the margin questions stored each
value (a response's weight depends only on its cell). A CellWatch names its key questions (CellKey: the margin
questions, and for a break-down the question it breaks down by); from its creation every submission adds itself to
CellTally under its cell, coded as one integer: the sum of each key's stored value times its key's multiplier
(mixed radix, the first key most significant, so that codes sort as the cells do).
"""

from __future__ import annotations

from django.db import models

from .reports import TALLY_SHARDS
from .survey import Question, Survey


class CellWatch(models.Model):
    """A set of key questions whose cells every submission of the survey counts its reports in. `keys`: their ids in
    order, comma-separated (what a reader looks the watch up by)."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+", db_index=False)
    keys = models.CharField(max_length=200)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["survey", "keys"], name="cell_watch_unique")]


class CellKey(models.Model):
    """One key question of a watch, found by the question a submission answers. `multiplier`: its stored value's
    weight in the cell's code; `keys`: how many keys the watch has (a response counts only with all of them)."""

    watch = models.ForeignKey(CellWatch, on_delete=models.CASCADE, related_name="+", db_index=False)
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+", db_index=False)
    multiplier = models.BigIntegerField()
    keys = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["question", "watch"], name="cell_key_unique")]


class CellTally(models.Model):
    """Responses of one cell of a watch that stored `value` for the question; split over TALLY_SHARDS rows like
    Tally."""

    watch = models.ForeignKey(CellWatch, on_delete=models.CASCADE, related_name="+", db_index=False)
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+", db_index=False)
    cell = models.BigIntegerField()
    value = models.BigIntegerField()
    shard = models.PositiveSmallIntegerField()
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["watch", "question", "cell", "value", "shard"], name="cell_tally_unique"),
            models.CheckConstraint(condition=models.Q(cell__gte=0), name="cell_tally_cell_valid"),
            models.CheckConstraint(condition=models.Q(shard__lt=TALLY_SHARDS), name="cell_tally_shard_valid"),
            models.CheckConstraint(condition=models.Q(count__gte=0), name="cell_tally_count_nonnegative"),
        ]

"""What respondents' browsers send, and what is kept about it.

Nothing here can hold a true answer: a Report holds the randomized value only, and a
Response holds no IP address, user agent, precise time or link to anybody; an Invitation
keeps a digest and a flag. Tally rows are running counts of the reports.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils.translation import gettext_lazy as _

from .keys import RandomKey
from .survey import Question, Survey


class Response(models.Model):
    """One respondent's randomized reports. Deliberately nothing that identifies anyone, nor when
    it came: a random UUID, and on SQLite a random rowid (`store`), not arrival order.

    Deleting responses (directly or by CASCADE) leaves the Tally counters stale: run
    `manage.py rebuild_counts <slug>` (surveys.collection.tallies.rebuild) afterwards, or
    delete with `manage.py purge <slug>`, which resets them.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No index of its own on the foreign keys below: each is the leading column of a unique
    # constraint or index, which serves its lookups; one index fewer to write per submission.
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="responses", db_index=False)
    mechanism_version = models.CharField(max_length=16)
    submitted_on = models.DateField(help_text=_("Day only: a precise time could link a report to a visit."))
    # A random key the browser makes per submission, so a retry never stores twice.
    submission_key = models.UUIDField()
    # The browser's word that it answered an earlier wave of this survey's series (it remembers that it did,
    # nothing more): the difference between waves counts respondents who answered both. Links nothing.
    earlier_wave = models.BooleanField(default=False, db_default=False)
    # A copy of its reports' values in one text, in the order of its version's plan's questions ("2,0,13"): many
    # questions read as one row per response, not one index entry per report (`answer_rows`). NULL where a
    # writer did not keep it (the reports are then read).
    answers = models.TextField(null=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "submission_key"], name="response_key_unique"),
        ]
        # Results check that no response has another mechanism version than the current one with two
        # seeks on this index (surveys.aggregation.results.versions), whatever the number of responses. The
        # day rides along so that the dashboard's responses per day read this index alone, in order
        # (surveys.aggregation.results.progress), never the rows: as many B-trees to write per submission.
        indexes = [models.Index(fields=["survey", "mechanism_version", "submitted_on"],
                                name="response_survey_version_day")]


REPORTS_BY_QUESTION = "report_question_response"


class Report(models.Model):
    """A randomized value: an option index, or for unary encodings a bitmask (bit j = option j).

    Its key is random (`keys.RandomKey`), like the response's UUID: no key says which report came first.
    """

    id = RandomKey()
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="reports", db_index=False)
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="reports", db_index=False)
    value = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["response", "question"], name="report_once_per_question"),
            models.CheckConstraint(condition=models.Q(value__gte=0), name="report_value_nonnegative"),
        ]
        # A question's reports in response order, value included: both sides of the cross-tab's
        # self-join read this index alone (crosstab.pair_counts), and a question's counts from its
        # reports scan it (tallies.count_from_reports). One index entry per report, as before.
        indexes = [models.Index(fields=["question", "response", "value"], name=REPORTS_BY_QUESTION)]


class Invitation(models.Model):
    """A single-use invitation: only a SHA-256 digest of its token is kept, never the token.

    Tokens carry 192 random bits, so an unsalted digest cannot be reversed. Nothing links
    an invitation to the response it admitted: `used` is a flag, without a time.
    `surveys.collection.invitations` makes and spends them.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="invitations")
    token_digest = models.CharField(max_length=64, unique=True, editable=False)
    used = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"Invitation {self.pk} ({'used' if self.used else 'unused'})"


TALLY_SHARDS = 16  # counters per (question, slot): concurrent submissions rarely share a row
TALLY_N_SLOT = -1  # the slot counting a question's reports


class Tally(models.Model):
    """A running count of reports, kept in step with the Report table by every writer.

    slot j >= 0: reports of option j (index mechanisms) or with bit j set (unary ones);
    slot -1: all reports of the question (n). Each (question, slot) is split over
    TALLY_SHARDS rows; a submission increments the rows of one random shard, so the
    dashboards read SUM(count) over shards in time proportional to options x shards,
    not to respondents. `surveys.collection.tallies` writes, reads and rebuilds them.
    """

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="tallies", db_index=False)
    slot = models.IntegerField()
    shard = models.PositiveSmallIntegerField()
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "slot", "shard"], name="tally_unique"),
            models.CheckConstraint(condition=models.Q(slot__gte=TALLY_N_SLOT), name="tally_slot_valid"),
            models.CheckConstraint(condition=models.Q(shard__lt=TALLY_SHARDS), name="tally_shard_valid"),
            models.CheckConstraint(condition=models.Q(count__gte=0), name="tally_count_nonnegative"),
        ]


class PairWatch(models.Model):
    """A pair of questions whose answers a researcher has related (a cross-tab or a break-down):
    from then on every submission counts the pair in PairTally, in its own transaction.
    `surveys.collection.pair_tallies` creates it together with the counts so far."""

    question_a = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+", db_index=False)
    question_b = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+", db_index=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question_a", "question_b"], name="pair_watch_unique"),
            models.CheckConstraint(condition=models.Q(question_a__lt=models.F("question_b")),
                                   name="pair_watch_ordered"),
        ]


class PairCounting(models.Model):
    """A pair of questions being counted in the background, not yet watched: the claim that keeps a
    second request from starting a second count (`surveys.aggregation.relating.pair_counting`). `claim` tells
    whose it is; `touched_at` is renewed as the count goes on, so a claim left by a worker that died
    goes stale and the next request takes it over."""

    question_a = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+", db_index=False)
    question_b = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+", db_index=False)
    claim = models.UUIDField()
    touched_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question_a", "question_b"], name="pair_counting_unique"),
            models.CheckConstraint(condition=models.Q(question_a__lt=models.F("question_b")),
                                   name="pair_counting_ordered"),
        ]


class PairTally(models.Model):
    """A running count of responses whose reports to questions A and B fall in cells (cell_a, cell_b).

    A question's cells for one report (`pair_tallies.cells`): an index-coded report is its option
    index; a unary one is -1 (the report itself) and each bit set. So (i, j) counts the pairs of
    the co-occurrence table, and the -1 rows the respondents and each side's counts among them.
    Kept for watched pairs only (PairWatch); split over TALLY_SHARDS rows like Tally.
    """

    question_a = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+", db_index=False)
    question_b = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+", db_index=False)
    cell_a = models.IntegerField()
    cell_b = models.IntegerField()
    shard = models.PositiveSmallIntegerField()
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question_a", "question_b", "cell_a", "cell_b", "shard"],
                                    name="pair_tally_unique"),
            models.CheckConstraint(condition=models.Q(cell_a__gte=-1, cell_b__gte=-1), name="pair_tally_cell_valid"),
            models.CheckConstraint(condition=models.Q(shard__lt=TALLY_SHARDS), name="pair_tally_shard_valid"),
            models.CheckConstraint(condition=models.Q(count__gte=0), name="pair_tally_count_nonnegative"),
        ]

"""Designed deletion: remove a survey's responses, reports and invitations, all or nothing.

`purge(survey)` keeps the survey, its questions and options (with no reports left they can
be edited again) and removes, in one transaction:

- every response and its reports, with set-wise DELETE statements counted by the database
  (a survey can have millions of reports; none is loaded into Python);
- every invitation, used or not (their tokens die with them);
- the survey's tally rows. Deleting reports does not update the running counters, and
  readers treat a missing row as 0, so removing the rows resets them; rows rather than
  zeros, because an editable survey may change its questions' options next;
- its prepared exports and their files (surveys.aggregation.exports.prepared), and once the
  transaction has committed any started meanwhile; a preparation still running finds its
  export gone and removes what it wrote.

An open survey is closed in the same transaction: a careful admin wiping a survey does not
want new responses arriving right after, and reopening it is then a deliberate act (the
open action). `preview(survey)` counts the same things without removing anything, for the
confirmation prompts of `manage.py purge` and the admin action.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction

from . import invitations, lifecycle
from .models import CellTally, Invitation, PairTally, Report, Response, Survey, Tally


@dataclass(frozen=True)
class Purged:
    """What a purge removed (or, from `preview`, would remove)."""

    survey: str  # slug
    responses: int
    reports: int
    invitations: int
    used_invitations: int  # included in `invitations`
    tally_rows: int
    closed: bool  # the survey was open and is (to be) closed first
    prepared_exports: int = 0  # report files prepared for download (surveys.aggregation.exports.prepared)

    def __str__(self) -> str:
        close = "closed it, then " if self.closed else ""
        return f"Purged {self.survey}: {close}removed {self._what()}; its questions and options are kept."

    def plan(self) -> str:
        """The same, said before it happens."""
        close = "close it, then " if self.closed else ""
        return f"Purging {self.survey} will {close}remove {self._what()}; its questions and options are kept."

    def _what(self) -> str:
        exports = f", {_count(self.prepared_exports, 'prepared export')}" if self.prepared_exports else ""
        return (f"{_count(self.responses, 'response')} ({_count(self.reports, 'report')}), "
                f"{_count(self.invitations, 'invitation')} ({self.used_invitations} used){exports} "
                f"and its result counters ({_count(self.tally_rows, 'tally row')})")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def preview(survey: Survey) -> Purged:
    """Count what `purge` would remove now, removing nothing."""
    made, used = invitations.counts(survey)
    return Purged(
        survey=survey.slug,
        responses=Response.objects.filter(survey=survey).count(),
        reports=Report.objects.filter(response__survey=survey).count(),
        invitations=made,
        used_invitations=used,
        tally_rows=Tally.objects.filter(question__survey=survey).count(),
        closed=survey.status == Survey.Status.OPEN,
        prepared_exports=survey.prepared_exports.count(),
    )


def purge(survey: Survey) -> Purged:
    """Remove the survey's responses, reports, invitations and tallies in one transaction.

    Concurrent submissions (PostgreSQL) neither deadlock with it nor leave the tallies out of
    step with the reports. A submission locks its invitation, then its tally rows (in
    (question, slot) order), then, at COMMIT because Django's foreign keys are deferred, the
    survey row (KEY SHARE). The purge takes the same locks in the same order: it deletes the
    invitations, locks the survey's tally rows in key order, then locks the survey row FOR
    UPDATE. So every submission already holding one of those locks commits before the purge
    deletes anything (and its response goes too), and every later one cannot commit until the
    purge has: its response survives with its own counts, in fresh tally rows. (Only one that
    passed its checks before the survey was closed can still land that way.) Locking the tally
    rows reads their ids: options x shards per question, not one per respondent.
    """
    with transaction.atomic():
        # Used ones first, for the count; then all the rest, including any spent meanwhile.
        used = Invitation.objects.filter(survey=survey, used=True).delete()[0]
        rest = Invitation.objects.filter(survey=survey).delete()[0]
        # of=self: the join's question rows stay unlocked (a submission's commit needs them).
        list(Tally.objects.select_for_update(of=("self",)).filter(question__survey=survey)
             .order_by("question_id", "slot", "shard").values_list("pk", flat=True))
        locked = Survey.objects.select_for_update().get(pk=survey.pk)
        was_open = locked.status == Survey.Status.OPEN
        if was_open:
            lifecycle.close_survey(locked)
        # Reports have no dependents, so Django deletes them in one statement.
        reports = Report.objects.filter(response__survey=survey).delete()[0]
        responses = _delete_responses(survey)
        tally_rows = Tally.objects.filter(question__survey=survey).delete()[0]
        # Pairs and cells stay watched, their counts back to none (a submission adds to them after its tallies).
        PairTally.objects.filter(question_a__survey=survey).delete()
        CellTally.objects.filter(watch__survey=survey).delete()
        from surveys.aggregation.exports import prepared  # results depend on collection, not the other way round
        prepared_exports = prepared.remove_for(survey)
    survey.status = locked.status
    return Purged(survey=survey.slug, responses=responses, reports=reports, invitations=used + rest,
                  used_invitations=used, tally_rows=tally_rows, closed=was_open, prepared_exports=prepared_exports)


def _delete_responses(survey: Survey) -> int:
    """One DELETE; the ORM's would load every response's id to cascade to reports already gone."""
    table = connection.ops.quote_name(Response._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE survey_id = %s", [survey.pk])
        return cursor.rowcount

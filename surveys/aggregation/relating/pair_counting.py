"""Pairs of questions counted in the background the first time they are related, when counting them
within the request could outlast it.

A pair is counted from the reports the first time it is asked for (`pair_tallies.watch_all`): at 10^6
responses 0.15 s per question when every response answers them all (each question's column read once), two to
three seconds a pair otherwise (the self-join), and a break-down of a 20-question survey asks 19 pairs, past
the web worker's timeout. So before relating, `ensure` estimates the work (`_work`: a self-join per pair, or a
column per question); above settings.RELATE_NOW_RESPONSES it claims those pairs (a PairCounting
row each: a second request finds them claimed and starts nothing), starts a daemon thread of the
web process that watches them, and waits for it up to WAIT seconds; a count that ends meanwhile is
answered at once, else it raises `Counting`: the dashboard says the table is being counted and
refreshes, programs get 202 with Retry-After. Below it nothing changes: the
pairs are counted in the request.

The thread watches the pairs (all in one transaction when read as columns, else one a transaction) and
drops each one's claim in the transaction that watches it, renewing its other claims' `touched_at`; a
claim untouched for STALE seconds (its worker died) is taken over by the next request. A failure is
logged and the thread's claims dropped, so the next ask retries. Correctness is `watch_all`'s: it counts
and starts watching under the lock that holds submissions back, and does nothing if the pair is watched
already.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connections, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from surveys.collection import pair_tallies, report_columns
from surveys.collection.models import PairCounting, PairWatch, Response, Survey
from surveys.collection.plan import PlannedQuestion

log = logging.getLogger(__name__)
STALE = 300  # seconds without a sign of life after which a claim is taken over
RETRY_AFTER = 5  # seconds a program is asked to wait before asking again
# Seconds a request that starts a count waits for it (all its counts together: a dashboard with a cross-tab
# and a break-down shares them): one that ends meanwhile is answered whole at once (a break-down by one
# question of 20 at 10^6 responses: 1.8 s on SQLite, 3.2 s on PostgreSQL) instead of after a refresh, which
# would come no sooner; well within a worker's timeout (gunicorn's 15 s).
WAIT = RETRY_AFTER
# The work of counting, per response, in the unit of settings.RELATE_NOW_RESPONSES divided by 8: a pair counted by
# the self-join 8, a question read as a column 1 (a pair's two columns measured 4 to 7 times faster than its
# self-join: 1.2 to 2.0 s against 0.29 to 0.32 s a pair at 10^6 responses on SQLite, bench/crosstab_bench.py).
SELF_JOIN, COLUMN = 8, 1
Pair = tuple[PlannedQuestion, PlannedQuestion]


class Counting(Exception):
    """Some of the pairs asked for are being counted in the background: ask again later."""

    def __init__(self, counted: int, pairs: int) -> None:
        super().__init__(f"{counted} of {pairs} pairs counted")
        self.counted, self.pairs, self.retry_after = counted, pairs, RETRY_AFTER


def _stored(pairs: Sequence[Pair]) -> list[Pair]:
    return [pair_tallies.ordered(a, b)[:2] for a, b in pairs]


def _of(model: type[PairWatch] | type[PairCounting], pairs: Sequence[Pair]) -> QuerySet:
    match = Q(pk__in=[])
    for a, b in pairs:
        match |= Q(question_a_id=a.id, question_b_id=b.id)
    return model.objects.filter(match)


def _ids(rows: QuerySet) -> set[tuple[int, int]]:
    return set(rows.values_list("question_a_id", "question_b_id"))


def ensure(survey: Survey, pairs: Sequence[Pair], wait: float = WAIT) -> None:
    """Return if the pairs can be related within this request (watched, or few responses to count, or counted
    in the background within `wait` seconds); otherwise see that the missing ones are being counted in the
    background and raise `Counting`."""
    stored = _stored(pairs)
    watched = _ids(_of(PairWatch, stored))
    missing = [(a, b) for a, b in stored if (a.id, b.id) not in watched]
    if not missing:
        return
    if _work(Response.objects.filter(survey=survey).count(), missing) <= settings.RELATE_NOW_RESPONSES * SELF_JOIN:
        return
    claimed = _claim(missing)
    if claimed:
        thread = start(*claimed)
        if len(claimed[1]) == len(missing):  # else others count the rest: nothing to wait for
            thread.join(max(wait, 0.0))
            watched = _ids(_of(PairWatch, stored))
            if all((a.id, b.id) in watched for a, b in stored):
                return
    raise Counting(counted=sum((a.id, b.id) in watched for a, b in stored), pairs=len(stored))


def _work(responses: int, missing: list[Pair]) -> int:
    """Counting the pairs, in eighths of a response counted by the self-join. A pair whose questions every
    response answers, as their tallies say, is read as two columns instead (`report_columns`); when all are,
    each question's column is read once for all of them (`pair_tallies.watch_all`)."""
    ids = {q.id for pair in missing for q in pair}
    n = report_columns.tallied(list(ids))
    if all(n.get(q) == responses for q in ids):
        return responses * COLUMN * len(ids)
    return responses * sum(2 * COLUMN if n.get(a.id) == n.get(b.id) == responses else SELF_JOIN for a, b in missing)


def _claim(missing: list[Pair]) -> tuple[uuid.UUID, list[Pair]] | None:
    """Claim the missing pairs nobody is counting (a stale claim is taken over); None if none."""
    now = timezone.now()
    held = _ids(_of(PairCounting, missing).filter(touched_at__gte=now - timedelta(seconds=STALE)))
    free = [(a, b) for a, b in missing if (a.id, b.id) not in held]
    if not free:
        return None  # a read only: a second request while counting writes nothing
    claim, won = uuid.uuid4(), []
    with transaction.atomic():  # one commit for all (a savepoint each)
        for a, b in free:
            try:
                with transaction.atomic():
                    _of(PairCounting, [(a, b)]).filter(touched_at__lt=now - timedelta(seconds=STALE)).delete()
                    PairCounting.objects.create(question_a_id=a.id, question_b_id=b.id, claim=claim, touched_at=now)
                won.append((a, b))
            except IntegrityError:
                pass  # another request claimed it meanwhile
    return (claim, won) if won else None


def start(claim: uuid.UUID, pairs: list[Pair]) -> threading.Thread:
    thread = threading.Thread(target=_in_background, args=(claim, pairs), daemon=True, name=f"relate-{claim}")
    thread.start()
    return thread


def _in_background(claim: uuid.UUID, pairs: list[Pair]) -> None:
    try:
        count(claim, pairs)
    except Exception:  # a thread has nobody to tell but the log
        log.exception("Counting %d pairs of questions (first %s and %s) failed", len(pairs),
                      pairs[0][0].id, pairs[0][1].id)
        PairCounting.objects.filter(claim=claim).delete()  # the next ask retries
    finally:
        connections.close_all()  # this thread's own connections


def count(claim: uuid.UUID, pairs: list[Pair]) -> None:
    """Watch the claimed pairs (`pair_tallies.watch_all`), dropping each one's claim in the transaction that
    watches it and renewing the others' (a long count is not taken for a dead one's)."""
    def done(a: PlannedQuestion, b: PlannedQuestion) -> None:
        PairCounting.objects.filter(claim=claim, question_a_id=a.id, question_b_id=b.id).delete()
        PairCounting.objects.filter(claim=claim).update(touched_at=timezone.now())

    pair_tallies.watch_all(pairs, done)

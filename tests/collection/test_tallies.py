"""The running tallies (the dashboards' counts): kept equal to a recount of the reports by
every writer, all-or-nothing with the reports, rebuildable and verifiable."""

import io
import threading
import uuid

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext

from surveys.collection import builder, demo, plan, submission, tallies
from surveys.collection.models import TALLY_N_SLOT, TALLY_SHARDS, Question, Response, Survey, Tally
from surveys.collection.submission import SubmissionError
from surveys.errors import status_of
from tests.collection.helpers import failing_insert, question, stored
from tests.factories import valid_payload


def snapshot():
    """Every tally row's count: what an error path must leave unchanged."""
    return {(t.question_id, t.slot, t.shard): t.count for t in Tally.objects.all()}


def totals(survey):
    """(question order, slot) -> count summed over shards, non-zero only."""
    rows = (Tally.objects.filter(question__survey=survey).values("question__order", "slot")
            .annotate(c=Sum("count")).values_list("question__order", "slot", "c"))
    return {(order, slot): c for order, slot, c in rows if c}


@pytest.fixture
def every_mechanism(survey):
    """The shared survey (qrr, bitflip, krr with 3 options, oue with 4) plus a 5-option SUE question."""
    sue = Question.objects.create(survey=survey, order=5, text="Sport?", kind="single_choice",
                                  mechanism_name="sue", epsilon=1.0)
    for j in range(5):
        sue.options.create(order=j, label=f"S{j}")
    return Survey.objects.get(pk=survey.pk)


def random_values(survey, rng):
    values = {}
    for q in survey.ordered_questions():
        k = q.k()
        if q.mechanism_name in ("sue", "oue"):
            values[q.order] = [int(b) for b in rng.integers(0, 2, size=k)]
        else:
            values[q.order] = int(rng.integers(0, k))
    return values


def expected_totals(submitted):
    """What the tallies must hold, counted here in Python from the submitted values."""
    found = {}
    for values in submitted:
        for order, value in values.items():
            slots = [j for j, bit in enumerate(value) if bit] if isinstance(value, list) else [value]
            for slot in [TALLY_N_SLOT, *slots]:
                found[(order, slot)] = found.get((order, slot), 0) + 1
    return found


@pytest.mark.slow
def test_submissions_of_every_mechanism_keep_the_tallies_equal_to_a_recount(every_mechanism):
    rng = np.random.default_rng(1)
    submitted = [random_values(every_mechanism, rng) for _ in range(80)]
    for values in submitted:
        assert submission.submit(every_mechanism, valid_payload(every_mechanism, values=values)).created
    assert tallies.differences(every_mechanism) == []
    assert totals(every_mechanism) == expected_totals(submitted)


def test_submissions_spread_over_several_shards(survey):
    for _ in range(40):
        submission.submit(survey, valid_payload(survey))
    used = Tally.objects.filter(question__survey=survey, question__order=1, slot=TALLY_N_SLOT, count__gt=0)
    assert 1 < used.count() <= TALLY_SHARDS
    assert sum(used.values_list("count", flat=True)) == 40


def test_a_submission_touches_the_tallies_with_a_bounded_number_of_queries(every_mechanism):
    submission.submit(every_mechanism, valid_payload(every_mechanism))  # creates the rows
    for _ in range(3):
        with CaptureQueriesContext(connection) as queries:
            submission.submit(every_mechanism, valid_payload(every_mechanism, values={4: [1, 1, 1, 1]}))
        tally = [q["sql"] for q in queries.captured_queries if "collection_tally" in q["sql"]]
        assert 1 <= len(tally) <= 3


def test_a_retry_with_the_same_key_does_not_count_twice(survey):
    payload = valid_payload(survey, values={3: 2})
    submission.submit(survey, payload)
    before = snapshot()
    again = submission.submit(survey, dict(payload))
    assert again.created is False
    assert snapshot() == before
    assert totals(survey)[(3, TALLY_N_SLOT)] == 1 and totals(survey)[(3, 2)] == 1


def closed(survey):
    survey.status = Survey.Status.CLOSED
    survey.save()


@pytest.mark.parametrize("spoil, status", [
    (lambda survey, payload: payload.update(version="outdated"), 409),
    (lambda survey, payload: payload["reports"].update({str(survey.questions.get(order=3).pk): 3}), 400),
    (lambda survey, payload: payload["reports"].update({str(survey.questions.get(order=4).pk): [1, 1]}), 400),
    (lambda survey, payload: payload.update(key="not-a-uuid"), 400),
    (lambda survey, payload: closed(survey), 410),
])
def test_a_rejected_submission_changes_no_tally(survey, spoil, status):
    submission.submit(survey, valid_payload(survey))
    before, rows = snapshot(), stored()
    payload = valid_payload(survey)
    spoil(survey, payload)
    with pytest.raises(SubmissionError) as error:
        submission.submit(survey, payload)
    assert status_of(error.value) == status
    assert snapshot() == before and stored() == rows


def test_reusing_a_key_for_other_reports_changes_no_tally(survey):
    key = uuid.uuid4()
    submission.submit(survey, valid_payload(survey, key=key, values={1: 0}))
    before = snapshot()
    with pytest.raises(SubmissionError):
        submission.submit(survey, valid_payload(survey, key=key, values={1: 1}))
    assert snapshot() == before


def test_a_failure_after_some_tallies_are_written_leaves_no_response_report_or_count(survey):
    submission.submit(survey, valid_payload(survey))
    before, rows = snapshot(), stored()
    last = survey.questions.order_by("-pk").first().pk  # tallies are written in question id order
    with failing_insert(Tally, f"NEW.question_id = {last}"), pytest.raises(DatabaseError, match="injected"):
        submission.submit(survey, valid_payload(survey))
    assert stored() == rows and snapshot() == before


def test_a_failing_tally_update_stores_nothing(survey):
    before, rows = snapshot(), stored()
    with failing_insert(Tally), pytest.raises(DatabaseError, match="injected"):
        submission.submit(survey, valid_payload(survey))
    assert stored() == rows and snapshot() == before


@pytest.mark.slow
def test_simulated_demo_responses_keep_the_tallies_equal_to_a_recount(db):
    survey, _ = demo.create_demo_survey()
    demo.simulate_responses(survey, 500, seed=3)
    assert tallies.differences(survey) == []
    demo.simulate_responses(survey, 120, seed=4)
    assert tallies.differences(survey) == []
    assert totals(survey)[(1, TALLY_N_SLOT)] == 620


def rebuild_counts(*args):
    out = io.StringIO()
    call_command("rebuild_counts", *args, stdout=out)
    return out.getvalue()


def test_verify_passes_when_the_tallies_agree(every_mechanism):
    for _ in range(5):
        submission.submit(every_mechanism, valid_payload(every_mechanism))
    assert "health: ok" in rebuild_counts("--verify")


@pytest.mark.slow
def test_verify_reports_corrupted_tallies_and_the_rebuild_fixes_them(every_mechanism):
    rng = np.random.default_rng(2)
    submitted = [random_values(every_mechanism, rng) for _ in range(30)]
    for values in submitted:
        submission.submit(every_mechanism, valid_payload(every_mechanism, values=values))
    Tally.objects.filter(question__order=3, slot=TALLY_N_SLOT).update(count=999)
    Tally.objects.filter(question__order=5, slot=2).delete()
    Tally.objects.create(question=every_mechanism.questions.get(order=1), slot=5, shard=0, count=3)
    out = io.StringIO()
    with pytest.raises(CommandError, match="differ"):
        call_command("rebuild_counts", "health", "--verify", stdout=out)
    assert "question 3 n" in out.getvalue() and "MISMATCH" in out.getvalue()
    assert "health: rebuilt" in rebuild_counts("health")
    assert "health: ok" in rebuild_counts("health", "--verify")
    assert totals(every_mechanism) == expected_totals(submitted)
    assert not Tally.objects.filter(slot=5, question__order=1).exists()


def test_deleting_responses_leaves_stale_tallies_until_a_rebuild(survey):
    for _ in range(4):
        submission.submit(survey, valid_payload(survey))
    Response.objects.first().delete()
    assert tallies.differences(survey)  # documented: deletion bypasses the counters
    tallies.rebuild(survey)
    assert tallies.differences(survey) == []
    assert totals(survey)[(1, TALLY_N_SLOT)] == 3


def test_rebuilding_an_unknown_survey_is_an_error(db):
    with pytest.raises(CommandError, match="no such survey"):
        rebuild_counts("nope")


@pytest.mark.django_db(transaction=True)
def test_concurrent_submissions_all_succeed_and_keep_the_tallies_equal_to_a_recount(every_mechanism):
    threads, each = 6, 8
    rng = np.random.default_rng(5)
    payloads = [[random_values(every_mechanism, rng) for _ in range(each)] for _ in range(threads)]
    errors, start = [], threading.Barrier(threads)

    def respond(values_list):
        from django.db import connection as thread_connection
        try:
            survey = Survey.objects.get(pk=every_mechanism.pk)
            start.wait()
            for values in values_list:
                assert submission.submit(survey, valid_payload(survey, values=values)).created
        except Exception as error:  # noqa: BLE001 -- reported to the main thread
            errors.append(error)
        finally:
            thread_connection.close()

    workers = [threading.Thread(target=respond, args=(p,)) for p in payloads]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert errors == []
    assert Response.objects.count() == threads * each
    assert tallies.differences(every_mechanism) == []
    assert totals(every_mechanism) == expected_totals([v for p in payloads for v in p])


# Per-option (per-bit, per-bin, per-level) counters for every kind; the 1-bit mean's two counters; discrete
# Laplace only its n (its estimate reads the stored values instead), so a grid of a million steps never
# becomes a million counter rows.
def test_a_submission_counts_each_kinds_slots_and_discrete_laplace_only_in_n(kinds_survey):
    submission.submit(kinds_survey, valid_payload(kinds_survey, values={1: [1, 0, 0, 1], 2: 1, 3: 4, 4: 2, 5: 3}))
    rows = (Tally.objects.filter(question__survey=kinds_survey).values("question__order", "slot")
            .annotate(c=Sum("count")).values_list("question__order", "slot", "c"))
    assert sorted((order, slot) for order, slot, c in rows if c) == [
        (1, -1), (1, 0), (1, 3), (2, -1), (2, 1), (3, -1), (4, -1), (4, 2), (5, -1), (5, 3)]


def test_discrete_laplace_has_no_counter_rows_but_n(kinds_survey):
    current = plan.of(kinds_survey)
    tallies.ensure_rows(current.questions)
    slots = set(Tally.objects.filter(question=question(kinds_survey, 3)).values_list("slot", flat=True))
    assert slots == {TALLY_N_SLOT}
    assert tallies.width(current.questions[2]) == 0 and current.questions[2].mechanism.k == 21


def test_simulated_responses_leave_tallies_that_agree_with_a_recount(kinds_survey):
    builder.simulate_responses(kinds_survey, 400, {}, seed=3)
    current = plan.of(kinds_survey)
    read, recounted = tallies.read(current), tallies.count_from_reports(current)
    for q in current:
        assert np.array_equal(read[q.id][0], recounted[q.id][0]) and read[q.id][1] == recounted[q.id][1] == 400
    assert tallies.differences(kinds_survey) == []


@pytest.mark.slow
def test_a_rebuild_restores_every_kinds_tallies(kinds_survey):
    builder.simulate_responses(kinds_survey, 200, {}, seed=4)
    before = tallies.read(plan.of(kinds_survey))
    Tally.objects.filter(question__survey=kinds_survey).update(count=0)
    assert tallies.differences(kinds_survey) != []
    tallies.rebuild(kinds_survey)
    after = tallies.read(plan.of(kinds_survey))
    assert tallies.differences(kinds_survey) == []
    assert all(np.array_equal(before[pk][0], after[pk][0]) and before[pk][1] == after[pk][1] for pk in before)

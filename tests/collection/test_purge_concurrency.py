"""A submission that arrives while a purge runs (PostgreSQL, real concurrent transactions).

The purge takes its locks in a submission's order (invitations, tally rows, survey row), so
the submission waits for the purge and then stores its response with its own counts: no
deadlock (which would abort one of them), no tallies out of step with the reports. Without
the tally rows' lock this test sees PostgreSQL's "deadlock detected"; without the survey
row's, a submission counted in a fresh shard commits mid-purge and the purge fails.
"""

import threading
import time

import pytest
from django.db import connection

from surveys.collection import plan, purge, submission, tallies
from surveys.collection.models import TALLY_SHARDS, Response, Survey
from tests.factories import valid_payload

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite runs one writer at a time"),
]
PAUSE = 0.5  # seconds the purge holds its locks while the submission tries to write


@pytest.mark.parametrize("shard", ["with rows", "fresh"])
def test_a_submission_arriving_mid_purge_waits_then_keeps_its_response_and_counts(survey, monkeypatch, shard):
    monkeypatch.setattr(tallies, "random_shard", lambda: 0)
    assert submission.submit(survey, valid_payload(survey)).created
    if shard == "with rows":  # the submission's upsert meets the purge's locks on the tally rows
        tallies.ensure_rows(plan.of(survey).questions)
    else:  # it inserts new tally rows, which no lock holds: only the survey row's lock stops its commit
        monkeypatch.setattr(tallies, "random_shard", lambda: TALLY_SHARDS - 1)
    payload, purging, outcome = valid_payload(survey), threading.Event(), {}

    def submit_meanwhile():
        try:
            assert purging.wait(10)
            loaded = Survey.objects.get(pk=survey.pk)  # as the view loads it: still open, the purge has not committed
            outcome["receipt"] = submission.submit(loaded, payload)
            outcome["done"] = time.monotonic()
        except Exception as error:  # noqa: BLE001 - reported by the main thread
            outcome["error"] = error
        finally:
            connection.close()

    delete_responses = purge._delete_responses

    def pause_holding_the_locks(target):  # runs after the purge has taken all its locks
        purging.set()
        time.sleep(PAUSE)
        outcome["resumed"] = time.monotonic()
        return delete_responses(target)

    monkeypatch.setattr(purge, "_delete_responses", pause_holding_the_locks)
    thread = threading.Thread(target=submit_meanwhile)
    thread.start()
    purged = purge.purge(survey)
    thread.join(30)
    assert "error" not in outcome, outcome.get("error")
    assert (purged.responses, purged.reports) == (1, 4)
    assert outcome["receipt"].created and outcome["done"] > outcome["resumed"]  # it waited for the purge
    assert list(Response.objects.filter(survey=survey).values_list("pk", flat=True)) == [outcome["receipt"].response_id]
    assert tallies.differences(survey) == []

"""surveys.collection.store: on SQLite, submissions queue on a file lock (released however the
write ends) rather than polling SQLite's lock, and outside a caller's transaction write with
BEGIN/COMMIT on the sqlite3 connection itself; PostgreSQL writes in one statement and takes none."""

import fcntl
import os
import threading

import pytest
from django.db import DatabaseError, connection

from surveys.collection import invitations, store, submission
from surveys.collection.models import Report, Tally
from tests.collection.helpers import failing_insert, stored
from tests.factories import valid_payload

pytestmark = pytest.mark.skipif(connection.vendor != "sqlite", reason="the lock queues SQLite's writers")


def lock_is_free() -> bool:
    """Try the lock from an open file description of our own, without waiting."""
    descriptor = os.open(store.lock_path(connection.settings_dict["NAME"]), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(descriptor)  # closing releases a lock we took
    return True


def test_it_releases_the_lock_after_a_write(survey):
    assert submission.submit(survey, valid_payload(survey)).created
    assert lock_is_free()


def test_it_releases_the_lock_when_a_write_fails(survey):
    before = stored()
    with failing_insert(Report), pytest.raises(Exception, match="injected failure"):
        submission.submit(survey, valid_payload(survey))
    assert lock_is_free() and stored() == before


def test_a_submission_waits_while_another_writer_holds_the_lock(transactional_db, survey):
    descriptor = os.open(store.lock_path(connection.settings_dict["NAME"]), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    done = threading.Event()

    def submit():
        try:
            submission.submit(survey, valid_payload(survey))
        finally:
            connection.close()  # the thread's own connection
            done.set()

    writer = threading.Thread(target=submit)
    writer.start()
    try:
        assert not done.wait(0.5)  # queued behind the lock
    finally:
        os.close(descriptor)  # releases it
    assert done.wait(10) and stored()[0] == 1
    writer.join()


# Outside a transaction (as in production: requests run in autocommit) the write takes the
# direct sqlite3 path; inside one (the `db` fixture) it takes Django's atomic(). Both must be
# all or nothing.

def test_outside_a_transaction_a_failed_write_leaves_nothing(transactional_db, survey):
    before = stored()
    with failing_insert(Tally), pytest.raises(DatabaseError, match="injected failure"):
        submission.submit(survey, valid_payload(survey))
    assert stored() == before and lock_is_free() and connection.get_autocommit()
    assert submission.submit(survey, valid_payload(survey)).created  # the connection is usable


def test_outside_a_transaction_a_retry_returns_the_first_receipt(transactional_db, survey):
    payload = valid_payload(survey)
    first, retry = submission.submit(survey, payload), submission.submit(survey, payload)
    assert (first.created, retry.created, retry.response_id) == (True, False, first.response_id)
    assert stored() == (1, survey.questions.count())


def test_outside_a_transaction_a_spent_invitation_writes_nothing(transactional_db, invitation_only):
    token = invitations.create(invitation_only, 1)[0]
    assert submission.submit(invitation_only, {**valid_payload(invitation_only), "invitation": token}).created
    before = stored()
    with pytest.raises(submission.SubmissionError, match="used"):
        submission.submit(invitation_only, {**valid_payload(invitation_only), "invitation": token})
    assert stored() == before

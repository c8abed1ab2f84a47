"""surveys.collection.store: on SQLite, submissions queue on a file lock (released however the
write ends) rather than polling SQLite's lock; PostgreSQL writes in one statement and takes none."""

import fcntl
import os
import threading

import pytest
from django.db import connection

from surveys.collection import store, submission
from surveys.collection.models import Report
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

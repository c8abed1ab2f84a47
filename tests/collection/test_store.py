"""surveys.collection.store: on SQLite, submissions queue on a file lock (released however the
write ends; beside the database, private to the app's user) rather than polling SQLite's lock,
and outside a caller's transaction write with BEGIN/COMMIT on the sqlite3 connection itself;
PostgreSQL writes in one statement and takes none."""

import fcntl
import hashlib
import os
import stat
import tempfile
import threading
from pathlib import Path

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

def submit_in_a_thread(survey) -> threading.Event:
    """Submit from a thread of its own (with its own connection); the event is set when it is done."""
    done = threading.Event()

    def submit():
        try:
            submission.submit(survey, valid_payload(survey))
        finally:
            connection.close()
            done.set()

    threading.Thread(target=submit, daemon=True).start()
    return done


def test_a_lock_file_another_user_plants_in_the_temporary_directory_stalls_nothing(transactional_db, survey):
    # Where the lock used to be: a name anybody on the machine could create first and hold.
    name = connection.settings_dict["NAME"]
    planted = Path(tempfile.gettempdir()) / f"surveys-{hashlib.sha256(name.encode()).hexdigest()[:16]}.lock"
    descriptor = os.open(planted, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    try:
        done = submit_in_a_thread(survey)
        assert done.wait(10) and stored()[0] == 1
    finally:
        os.close(descriptor)
        planted.unlink()
    assert done.wait(10)


def test_the_lock_file_is_beside_the_database_and_private(survey):
    assert submission.submit(survey, valid_payload(survey)).created
    database = Path(connection.settings_dict["NAME"])
    found = os.lstat(store.lock_path(str(database)))
    assert (store.lock_path(str(database)), stat.S_ISREG(found.st_mode), stat.S_IMODE(found.st_mode),
            found.st_uid) == (database.parent / f"{database.name}-writers.lock", True, 0o600, os.geteuid())


def test_it_makes_an_existing_lock_file_private(tmp_path):
    database = str(tmp_path / "db.sqlite3")
    store.lock_path(database).touch(mode=0o666)
    store.lock_path(database).chmod(0o666)
    os.close(store.open_lock(database))
    assert stat.S_IMODE(store.lock_path(database).stat().st_mode) == 0o600


def test_it_never_follows_a_symbolic_link_planted_as_the_lock_file(tmp_path):
    database, elsewhere = str(tmp_path / "db.sqlite3"), tmp_path / "elsewhere"
    store.lock_path(database).symlink_to(elsewhere)
    with pytest.raises(OSError, match="Too many levels of symbolic links"):
        store.open_lock(database)
    assert not elsewhere.exists()


def test_an_in_memory_database_takes_no_lock_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a relative name's lock file would be made
    monkeypatch.setitem(connection.settings_dict, "NAME", ":memory:")
    with store._one_writer():
        assert list(tmp_path.iterdir()) == []


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

"""Prepared exports written by a background thread (settings.EXPORT_BACKGROUND, as in production), on
committed data (transactional_db): the request is answered 202 with the progress, then the file; a
response that arrives meanwhile is in neither the file nor its codebook; two requests join one
preparation; a purge meanwhile leaves no file. The writer is held at a chosen row
(tests/aggregation/held_export.py)."""

import json
import time

import pytest

from surveys.aggregation.exports import reports as exports
from surveys.aggregation.models import PreparedExport
from surveys.collection import plan
from surveys.collection.purge import purge
from tests.aggregation.held_export import Gate, join_preparations
from tests.aggregation.support import add_responses

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def answered(client, owner, survey, background):
    add_responses(survey, 30, seed=5)
    client.force_login(owner)
    return survey


def fetch(client, url):
    return client.get(url, headers={"Accept": "application/json"})


def until(client, url, ready, seconds=30):
    """GET `url` until `ready(response)`."""
    deadline = time.monotonic() + seconds
    while True:
        response = fetch(client, url)
        if ready(response) or time.monotonic() > deadline:
            return response
        time.sleep(0.05)


def download(client, url):
    """GET `url`, then follow its 202 answers to the file."""
    response = fetch(client, url)
    if response.status_code == 202:
        return until(client, response.json()["url"], lambda answer: answer.status_code != 202)
    return response


def csv_of(survey):
    return "".join(exports.report_csv_lines(survey, plan.of(survey))).encode()


URL = "/results/health/export/reports.csv"


def test_a_request_is_answered_202_with_the_progress_then_the_whole_file(client, answered, monkeypatch):
    expected = csv_of(answered)
    gate = Gate(monkeypatch, at=11)
    first = fetch(client, URL)
    assert first.status_code == 202 and first.json()["status"] == "preparing"
    poll = first.json()["url"]
    assert gate.reached.wait(30)
    waiting = until(client, poll, lambda response: response.json()["rows"] == 10)
    assert waiting.status_code == 202 and waiting.json()["responses"] == 30
    gate.open.set()
    done = download(client, poll)
    assert done.status_code == 200 and b"".join(done.streaming_content) == expected
    assert done["X-Export-Rows"] == "30"


def test_a_small_survey_is_sent_at_once_after_a_short_wait(client, answered, settings):
    settings.EXPORT_WAIT = 30
    response = fetch(client, URL)
    assert response.status_code == 200 and b"".join(response.streaming_content) == csv_of(answered)


def test_a_response_arriving_during_the_export_is_in_neither_the_file_nor_its_codebook(client, answered, monkeypatch):
    before = csv_of(answered)
    gate = Gate(monkeypatch, at=0)  # the count and codebook are read, the rows' query not yet started
    poll = fetch(client, URL).json()["url"]
    assert gate.reached.wait(30)
    add_responses(answered, 1, seed=9)  # committed while the export is being made
    gate.open.set()
    done = download(client, poll)
    assert done.status_code == 200 and b"".join(done.streaming_content) == before
    book = json.loads(client.get(done["Link"].split(">")[0].lstrip("<")).content)
    assert book["export"]["rows"] == 30 and done["X-Export-Rows"] == "30"
    latest = download(client, URL)  # stale now: prepared again, with the new response
    assert latest["X-Export-Rows"] == "31" and b"".join(latest.streaming_content) == csv_of(answered)


def test_two_requests_at_once_join_one_preparation(client, answered, monkeypatch):
    gate = Gate(monkeypatch, at=1)
    first, second = fetch(client, URL), fetch(client, URL)
    assert first.status_code == second.status_code == 202 and first.json()["url"] == second.json()["url"]
    assert PreparedExport.objects.count() == 1
    gate.open.set()


def test_a_purge_during_the_preparation_leaves_no_export_and_no_file(client, answered, monkeypatch, settings):
    gate = Gate(monkeypatch, at=11)
    poll = fetch(client, URL).json()["url"]
    assert gate.reached.wait(30)
    purged = purge(answered)
    gate.open.set()
    join_preparations()
    assert purged.prepared_exports == 1 and not PreparedExport.objects.exists()
    assert list(settings.EXPORT_DIR.iterdir()) == []
    assert fetch(client, poll).status_code == 410

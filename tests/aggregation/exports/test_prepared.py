"""Prepared report exports (surveys.aggregation.exports.prepared and prepared_views), prepared within the request
as tests/conftest.py has it: a download is the whole in-process export with its length, digest and rows,
or an explicit answer that it is being prepared (202), failed (500) or is no longer kept (410).
The background thread is in test_prepared_in_the_background.py; gunicorn in
tests/test_exports_under_a_worker_timeout.py."""

import base64
import hashlib
import json
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.db import IntegrityError, transaction
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils import timezone

from surveys.aggregation.exports import prepared, stata_spss
from surveys.aggregation.exports import reports as exports
from surveys.aggregation.exports import store as export_store
from surveys.aggregation.models import PreparedExport
from surveys.collection import plan
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses

FORMATS = ["csv", "json", "dta", "sav"]
# Stata and SPSS files carry the time they were written (tests/aggregation/exports/test_stata_spss.py).
TIMESTAMPS = {"dta": lambda b: b[:b.index(b"<timestamp>")] + b[b.index(b"</timestamp>"):],
              "sav": lambda b: b[:92] + b[109:], "csv": lambda b: b, "json": lambda b: b}


def fetch(client, survey, fmt, query="", **headers):
    return client.get(reverse(f"aggregation:export-reports-{fmt}", args=[survey.slug]) + query, headers=headers)


def body(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


def in_process(survey, fmt):
    current = plan.of(survey)
    if fmt == "csv":
        return "".join(exports.report_csv_lines(survey, current)).encode()
    if fmt == "json":
        return "".join(exports.report_json_chunks(survey, current)).encode()
    return (stata_spss.stata_file if fmt == "dta" else stata_spss.spss_file)(survey, current).read()


def export_of(response):
    """The PreparedExport a file answer came from (its codebook link names it)."""
    return PreparedExport.objects.get(pk=response["Link"].split("?export=")[1].split(">")[0])


def files():
    return sorted(path.name for path in export_store.directory().iterdir())


@pytest.fixture
def answered(client, owner, survey):
    add_responses(survey, 30, seed=5)
    client.force_login(owner)
    return survey


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_export_is_the_in_process_export_with_its_length_digest_and_rows(client, answered, fmt):
    response = fetch(client, answered, fmt)
    assert response.status_code == 200
    sent = body(response)
    assert TIMESTAMPS[fmt](sent) == TIMESTAMPS[fmt](in_process(answered, fmt))
    assert int(response["Content-Length"]) == len(sent)
    assert response["Repr-Digest"] == f"sha-256=:{base64.b64encode(hashlib.sha256(sent).digest()).decode()}:"
    assert response["X-Export-Rows"] == "30"
    assert response["Content-Disposition"] == f'attachment; filename="health-reports.{fmt}"'


@pytest.mark.parametrize("fmt", FORMATS)
def test_its_codebook_describes_exactly_that_file(client, answered, fmt):
    response = fetch(client, answered, fmt)
    sent = body(response)
    codebook = client.get(response["Link"].split(">")[0].lstrip("<"))
    assert codebook.status_code == 200
    assert codebook["Content-Disposition"] == 'attachment; filename="health-codebook.json"'
    book = json.loads(codebook.content)
    export = export_of(response)
    assert book.pop("export") == {"file": f"health-reports.{fmt}", "format": fmt, "rows": 30, "bytes": len(sent),
                                  "sha256": hashlib.sha256(sent).hexdigest(), "as_of": export.as_of.isoformat()}
    assert book == json.loads(client.get(reverse("aggregation:export-codebook", args=[answered.slug])).content)


def test_a_second_request_is_sent_the_same_file_without_preparing_it_again(client, answered):
    first, second = fetch(client, answered, "csv"), fetch(client, answered, "csv")
    assert body(first) == body(second) and export_of(first) == export_of(second)
    assert PreparedExport.objects.count() == 1 and len(files()) == 1


def test_a_new_response_makes_the_file_stale_and_the_next_request_replaces_it(client, answered):
    old = export_of(fetch(client, answered, "csv"))
    add_responses(answered, 1, seed=6)
    response = fetch(client, answered, "csv")
    assert response["X-Export-Rows"] == "31" and body(response) == in_process(answered, "csv")
    assert export_of(response) != old and not PreparedExport.objects.filter(pk=old.pk).exists()
    assert files() == [prepared.file_name(export_of(response))]
    assert fetch(client, answered, "csv", f"?export={old.pk}").status_code == 410


def test_a_changed_survey_makes_the_file_stale(client, answered):
    old = export_of(fetch(client, answered, "json"))
    Survey.objects.filter(pk=answered.pk).update(status=Survey.Status.CLOSED)
    response = fetch(client, answered, "json")
    assert export_of(response) != old and json.loads(body(response))["codebook"]["survey"]["status"] == "closed"


def test_a_file_asked_for_by_its_id_is_sent_even_after_newer_responses(client, answered):
    old = export_of(fetch(client, answered, "csv"))
    before = in_process(answered, "csv")
    add_responses(answered, 2, seed=7)
    response = fetch(client, answered, "csv", f"?export={old.pk}")
    assert response.status_code == 200 and body(response) == before and response["X-Export-Rows"] == "30"


def test_a_file_past_its_time_is_removed_and_answers_gone(client, answered):
    export = export_of(fetch(client, answered, "csv"))
    PreparedExport.objects.filter(pk=export.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = fetch(client, answered, "csv", f"?export={export.pk}")
    assert response.status_code == 410 and b"is no longer kept" in response.content
    assert not PreparedExport.objects.exists() and files() == []


@pytest.mark.parametrize("query", ["?export=not-an-id", "?export=3de9362e-45d8-4bc8-976b-b3fe0af2871d"])
def test_an_unknown_export_answers_gone(client, answered, query):
    response = fetch(client, answered, "csv", query, Accept="application/json")
    assert response.status_code == 410
    assert response.json() == {"status": "gone", "url": f"/results/{answered.slug}/export/reports.csv"}


def test_another_surveys_or_formats_export_is_not_sent_under_this_ones_url(client, answered, every_mechanism_survey):
    other = export_of(fetch(client, every_mechanism_survey, "csv"))
    assert fetch(client, answered, "csv", f"?export={other.pk}").status_code == 410
    assert fetch(client, every_mechanism_survey, "json", f"?export={other.pk}").status_code == 410


def test_a_file_that_changed_on_disk_is_not_sent_but_made_again(client, answered):
    export = export_of(fetch(client, answered, "csv"))
    path = export_store.directory() / prepared.file_name(export)
    path.write_bytes(path.read_bytes()[:-10])
    assert fetch(client, answered, "csv", f"?export={export.pk}").status_code == 410
    response = fetch(client, answered, "csv")
    assert response.status_code == 200 and body(response) == in_process(answered, "csv")


def running_elsewhere(survey, fmt="csv", beat=timedelta(0), **fields):
    """A preparation as another worker's thread leaves it in the database."""
    now = timezone.now()
    return PreparedExport.objects.create(survey=survey, format=fmt, created_at=now, heartbeat_at=now - beat, **fields)


def test_a_preparation_running_elsewhere_is_joined_and_answered_202_with_its_progress(client, answered, settings):
    settings.EXPORT_WAIT = 0
    running = running_elsewhere(answered, rows=12, responses=30)
    response = fetch(client, answered, "csv")
    url = f"/results/{answered.slug}/export/reports.csv?export={running.pk}"
    assert response.status_code == 202
    assert response["Refresh"] == f"2; url={url}" and response["Retry-After"] == "2"
    page = response.content.decode()
    assert '<progress max="30" value="12"' in page and "12 of 30 responses written." in page
    assert "Preparing health-reports.csv" in page and "<script" not in page
    assert PreparedExport.objects.count() == 1

    polled = fetch(client, answered, "csv", f"?export={running.pk}", Accept="application/json")
    assert polled.status_code == 202 and "Refresh" not in polled and polled["Retry-After"] == "2"
    assert polled.json() == {"status": "preparing", "url": url, "rows": 12, "responses": 30, "retry_after": 2}
    codebook = client.get(f"/results/health/export/codebook.json?export={running.pk}")  # none before the file
    assert codebook.status_code == 202
    assert codebook["Refresh"] == f"2; url=/results/health/export/codebook.json?export={running.pk}"


def test_the_database_refuses_a_second_preparation_of_the_same_export(answered):
    running_elsewhere(answered)
    running_elsewhere(answered, "json")  # another format: its own
    with pytest.raises(IntegrityError), transaction.atomic():
        running_elsewhere(answered)


def test_a_preparation_whose_worker_died_is_taken_over(client, answered):
    dead = running_elsewhere(answered, beat=prepared.STALE_AFTER + timedelta(seconds=1), rows=12, responses=30)
    left = export_store.directory() / (export_store.name(dead.pk, 1, "csv") + export_store.PART)
    left.write_bytes(b"response_id,submitted_on\r\n")  # what the killed worker had written
    response = fetch(client, answered, "csv")
    assert response.status_code == 200 and body(response) == in_process(answered, "csv")
    assert export_of(response) == dead and export_of(response).attempt == 2
    assert files() == [export_store.name(dead.pk, 2, "csv")]


def test_a_writer_that_ends_early_is_an_error_and_leaves_no_file(client, answered, monkeypatch, caplog):
    whole = exports.report_csv_lines
    # The header and 15 rows of 30 (the writer may yield a block of many rows as one piece).
    monkeypatch.setattr(exports, "report_csv_lines",
                        lambda survey, current: "".join(whole(survey, current)).splitlines(keepends=True)[:16])
    response = fetch(client, answered, "csv")
    assert response.status_code == 500 and b"could not be prepared" in response.content
    assert PreparedExport.objects.get().status == "failed" and files() == []
    assert "15 rows written of 30 responses" in caplog.text
    monkeypatch.setattr(exports, "report_csv_lines", whole)
    assert fetch(client, answered, "csv").status_code == 200  # asked again, prepared again


def test_a_writer_that_fails_midway_is_an_error_and_leaves_no_file(client, answered, monkeypatch):
    whole = exports.report_json_chunks

    def failing(survey, current):
        for number, line in enumerate("".join(whole(survey, current)).splitlines(keepends=True)):
            if number == 10:
                raise OSError("disk full")
            yield line

    monkeypatch.setattr(exports, "report_json_chunks", failing)
    response = fetch(client, answered, "json", Accept="application/json")
    assert response.status_code == 500 and response.json() == {
        "status": "failed", "url": f"/results/{answered.slug}/export/reports.json"}
    assert files() == []


def test_the_dashboard_shows_each_prepared_export(client, answered):
    ready = export_of(fetch(client, answered, "csv"))
    running_elsewhere(answered, "json", rows=10, responses=30)
    running_elsewhere(answered, "dta", status="failed", finished_at=timezone.now(),
                               expires_at=timezone.now() + timedelta(hours=1))
    page = client.get(reverse("aggregation:dashboard", args=[answered.slug])).content.decode()
    assert f'href="/results/health/export/reports.csv?export={ready.pk}" download' in page
    assert f'href="/results/health/export/codebook.json?export={ready.pk}" download' in page
    assert f"Ready: {filesizeformat(ready.bytes)}, 30 responses as of" in page and ready.sha256 in page
    assert '<progress max="30" value="10"' in page and "Being prepared: 10 of 30 responses written." in page
    assert "Its last preparation failed" in page
    assert f"kept {django_settings.EXPORT_KEEP_HOURS} hours" in page


def test_a_prepared_file_and_its_codebook_reach_only_those_who_may_see_the_survey(
        client, answered, other_researcher, superuser):
    export = export_of(fetch(client, answered, "csv"))
    paths = [f"/results/health/export/reports.csv?export={export.pk}",
             f"/results/health/export/codebook.json?export={export.pk}"]
    client.force_login(other_researcher)
    assert [client.get(path).status_code for path in paths] == [404, 404]
    client.logout()
    assert [client.get(path).status_code for path in paths] == [302, 302]
    client.force_login(superuser)
    assert [client.get(path).status_code for path in paths] == [200, 200]

"""`manage.py prune_exports` (for cron): removes prepared exports past their time, made stale or replaced,
and files named like an export's that no export owns, older than a preparation's heartbeat allows;
current exports and anything else in the directory stay."""

import io
import os
import time
import uuid
from datetime import timedelta

from django.core.management import call_command
from django.utils import timezone

from surveys.aggregation.exports import prepared
from surveys.aggregation.exports import store as export_store
from surveys.aggregation.models import PreparedExport
from tests.aggregation.support import add_responses


def prepare(client, survey, fmt):
    response = client.get(f"/results/{survey.slug}/export/reports.{fmt}")
    assert response.status_code == 200
    return PreparedExport.objects.get(pk=response["Link"].split("?export=")[1].split(">")[0])


def written(path, content, age):
    """`path` with `content`, last modified `age` seconds ago."""
    path.write_bytes(content)
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_it_removes_what_is_past_its_time_stale_or_owned_by_no_export(client, owner, survey, every_mechanism_survey):
    client.force_login(owner)
    add_responses(survey, 5)
    current, expired = prepare(client, survey, "csv"), prepare(client, survey, "json")
    stale = prepare(client, every_mechanism_survey, "csv")
    # Past their time or stale since the last export request (which would have removed them).
    PreparedExport.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    add_responses(every_mechanism_survey, 1)
    folder = export_store.directory()
    written(folder / f"{uuid.uuid4()}-1.dta.part", b"<stata_dta>", 3600)  # a killed worker's partial file
    written(folder / f"{uuid.uuid4()}-2.csv", b"response_id\r\n", 3600)  # a deleted survey's file
    young = written(folder / f"{uuid.uuid4()}-1.sav.part", b"$FL2", 0)  # a preparation just started elsewhere
    written(folder / "README.txt", b"not an export", 3600)

    out = io.StringIO()
    call_command("prune_exports", stdout=out)

    assert out.getvalue() == "Removed 2 prepared exports and 2 orphaned files.\n"
    assert list(PreparedExport.objects.all()) == [current]  # not `expired`, nor `stale`
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        [prepared.file_name(current), young.name, "README.txt"])
    assert stale.survey_id == every_mechanism_survey.pk

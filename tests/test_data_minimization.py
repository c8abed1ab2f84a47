"""Data minimization: a canary string sent in a submission's body, headers and invitation
token, and a distinctive client address, are found nowhere afterwards: not in any table,
not in any log record (SQL included), not on stdout or stderr."""

import json
import logging

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys.collection import invitations, plan
from surveys.collection.models import Invitation, Report, Response
from tests.factories import valid_payload

CANARY = "canary-7f3a9c-do-not-store"
ADDRESS = "203.0.113.201"
URL = "/api/v1/surveys/health/responses/"
HEADERS = {"HTTP_USER_AGENT": f"Mozilla/5.0 {CANARY}", "HTTP_X_CANARY": CANARY,
           "HTTP_REFERER": f"https://example.org/?{CANARY}", "REMOTE_ADDR": ADDRESS}


@pytest.fixture
def canary_invitation(invitation_only):
    """An invitation whose token is the canary, as if made by invitations.create."""
    Invitation.objects.create(survey=invitation_only, token_digest=invitations.digest(CANARY))
    return invitation_only


def everything_stored() -> str:
    """Every row of every table, as text."""
    return json.dumps([list(model._base_manager.values()) for model in apps.get_models()], default=str)


def post(client, body):
    return client.post(URL, data=json.dumps(body), content_type="application/json", **HEADERS)


def rejected_bodies(survey):
    """Submissions carrying the canary where the server must refuse them."""
    spoiled = []
    for change in ({"version": CANARY}, {"key": CANARY}, {"extra": CANARY}, {CANARY: 1},
                   {"reports": {CANARY: 0}}, {"invitation": CANARY + "-unknown"}):
        spoiled.append({**valid_payload(survey), "invitation": CANARY, **change})
    question = str(survey.questions.get(order=1).pk)
    spoiled.append({**valid_payload(survey), "invitation": CANARY, "reports": {question: CANARY}})
    return spoiled


def test_a_canary_in_body_headers_and_token_is_stored_and_logged_nowhere(client, canary_invitation, caplog, capfd):
    invitation_only = canary_invitation
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="django")  # Django's own default is INFO
    with CaptureQueriesContext(connection) as queries:  # also makes Django log every SQL statement
        assert client.get("/s/health/", **HEADERS).status_code == 200
        for body in rejected_bodies(invitation_only):
            assert 400 <= post(client, body).status_code < 500
        assert Response.objects.count() == 0
        accepted = post(client, {**valid_payload(invitation_only), "invitation": CANARY})
        assert accepted.status_code == 201, accepted.content
    assert Response.objects.count() == 1 and Invitation.objects.get().used  # the canary was really used

    sql = json.dumps([q["sql"] for q in queries.captured_queries])
    logged = caplog.text + json.dumps([str(record.args) for record in caplog.records])
    out, err = capfd.readouterr()
    for where, text in {"database": everything_stored(), "SQL": sql, "logs": logged,
                        "stdout": out, "stderr": err}.items():
        assert CANARY not in text, f"the canary reached the {where}"
        assert ADDRESS not in text, f"the client address reached the {where}"
    assert "django.db.backends" in {record.name for record in caplog.records}  # the SQL log was captured


def test_a_response_row_holds_only_the_designed_fields(client, survey):
    assert post(client, valid_payload(survey)).status_code == 201
    row = Response.objects.values().get()
    # earlier_wave: one bit, whether the browser answered an earlier wave of the series (false outside one)
    # answers: the reports' randomized values again, in the plan's order (surveys.collection.answer_rows)
    assert set(row) == {"id", "survey_id", "mechanism_version", "submitted_on", "submission_key", "earlier_wave",
                        "answers"}
    reports = dict(Report.objects.values_list("question_id", "value"))
    assert row["answers"] == ",".join(str(reports[q.id]) for q in plan.of(survey))
    assert row["earlier_wave"] is False
    assert "T" not in str(row["submitted_on"]) and len(str(row["submitted_on"])) == 10  # a day, not a time

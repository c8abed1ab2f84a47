"""50 submissions with one invitation token, released together against a live server, store
exactly one response; with the database guard replaced by a naive spend the same test sees
the doubles (the negative control), so it can tell the difference."""

import http.client
import json
import threading
import uuid
from http.cookies import SimpleCookie
from urllib.parse import urlparse

import pytest

from surveys.collection import invitations, store
from surveys.collection.models import Invitation, Response
from tests.factories import valid_payload

pytestmark = pytest.mark.django_db(transaction=True)
SUBMITTERS = 50


@pytest.fixture
def one_invitation(invitation_only):
    [token] = invitations.create(invitation_only, 1)
    return invitation_only, token


def csrf_token(host, port, slug):
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.request("GET", f"/s/{slug}/")
    response = connection.getresponse()
    response.read()
    cookie = SimpleCookie(response.getheader("Set-Cookie"))
    return cookie["csrftoken"].value


def submit_together(live_server, survey, token) -> list[int]:
    """POST SUBMITTERS submissions (distinct keys, one token), all released by one barrier."""
    url = urlparse(live_server.url)
    csrf = csrf_token(url.hostname, url.port, survey.slug)
    bodies = [json.dumps({**valid_payload(survey, key=uuid.uuid4()), "invitation": token})
              for _ in range(SUBMITTERS)]
    start, statuses = threading.Barrier(SUBMITTERS), []

    def post(body):
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        connection.connect()  # connected before the barrier, so the posts really start together
        start.wait()
        connection.request("POST", f"/api/v1/surveys/{survey.slug}/responses/", body=body, headers={
            "Content-Type": "application/json", "X-CSRFToken": csrf, "Cookie": f"csrftoken={csrf}"})
        response = connection.getresponse()
        response.read()
        statuses.append(response.status)

    threads = [threading.Thread(target=post, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(statuses) == SUBMITTERS  # every request was answered
    return sorted(statuses)


@pytest.mark.slow
def test_fifty_concurrent_submissions_with_one_token_store_exactly_one_response(live_server, one_invitation):
    survey, token = one_invitation
    statuses = submit_together(live_server, survey, token)
    assert statuses == [201] + [403] * (SUBMITTERS - 1)
    assert Response.objects.filter(survey=survey).count() == 1
    assert Invitation.objects.get().used


@pytest.mark.slow
def test_the_negative_control_without_the_guard_sees_the_doubles(live_server, one_invitation, monkeypatch):
    survey, token = one_invitation

    def spend_without_the_guard(row):
        # What a naive implementation does: find the invitation and mark it used, whatever it was.
        sql, params = guarded(row)
        return sql.replace(" AND NOT used", ""), params

    guarded = store.spend_sql
    assert " AND NOT used" in guarded(store.NewResponse(survey, None, None, "", None, (), {}, "digest"))[0]
    monkeypatch.setattr(store, "spend_sql", spend_without_the_guard)
    statuses = submit_together(live_server, survey, token)
    assert statuses.count(201) > 1
    assert Response.objects.filter(survey=survey).count() == statuses.count(201)

"""The admin action that creates invitation links and hands them over once, as a CSV download."""

import csv
import io

import pytest

from surveys.collection import invitations
from surveys.collection.models import Invitation
from tests.conftest import login

CHANGELIST = "/admin/collection/survey/"


def act(client, survey, **extra):
    return client.post(CHANGELIST, {"action": "create_invitations", "_selected_action": [survey.pk], **extra})


def test_it_asks_how_many_links_first(client, superuser, invitation_only):
    response = act(login(client, superuser), invitation_only)
    assert response.status_code == 200
    assert b'name="count"' in response.content and b"only copy" in response.content
    assert not Invitation.objects.exists()


def test_it_downloads_a_csv_of_links_whose_digests_it_stored(client, superuser, invitation_only):
    response = act(login(client, superuser), invitation_only, count="7")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "no-store" in response["Cache-Control"]  # the only copy of the tokens: never cached
    assert 'filename="health-invitations.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    tokens = [row[0].split("#invitation=")[1] for row in rows[1:]]
    assert rows[0] == ["link"] and all(row[0].startswith("http://testserver/s/health/#") for row in rows[1:])
    assert set(Invitation.objects.values_list("token_digest", flat=True)) == {invitations.digest(t) for t in tokens}
    assert len(tokens) == 7


@pytest.mark.parametrize("count", ["0", "abc", str(invitations.MAX_BATCH + 1)])
def test_a_bad_count_asks_again_and_makes_nothing(client, superuser, invitation_only, count):
    response = act(login(client, superuser), invitation_only, count=count)
    assert response.status_code == 200 and b"errorlist" in response.content
    assert not Invitation.objects.exists()


def test_it_refuses_a_survey_open_to_anyone_with_the_link(client, superuser, survey):
    response = act(login(client, superuser), survey, count="5")
    assert response.status_code == 302
    assert not Invitation.objects.exists()


def test_the_survey_page_counts_invitations_made_and_used(client, superuser, invitation_only):
    invitations.create(invitation_only, 4)
    Invitation.objects.filter(pk=Invitation.objects.first().pk).update(used=True)
    response = login(client, superuser).get(f"{CHANGELIST}{invitation_only.pk}/change/")
    assert b"4 made, 1 used" in response.content

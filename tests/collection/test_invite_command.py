"""python manage.py invite <slug> --count N --base-url URL [--output FILE]: a CSV of single-use links."""

import csv
import io

import pytest
from django.core.management import CommandError, call_command

from surveys.collection import invitations
from surveys.collection.models import Invitation


def invite(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("invite", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def links_of(text):
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["link"]
    return [row[0] for row in rows[1:]]


def test_it_writes_one_working_link_per_invitation_and_stores_only_their_digests(invitation_only):
    out, err = invite("health", "--count", "25", "--base-url", "https://survey.example.org")
    links = links_of(out)
    assert len(set(links)) == 25 and "25 invitation links" in err
    prefix = "https://survey.example.org/s/health/#invitation="
    assert all(link.startswith(prefix) for link in links)
    tokens = [link.removeprefix(prefix) for link in links]
    assert set(Invitation.objects.filter(survey=invitation_only, used=False).values_list("token_digest", flat=True)) \
        == {invitations.digest(token) for token in tokens}


def test_it_writes_the_csv_to_a_file_when_asked(invitation_only, tmp_path):
    target = tmp_path / "links.csv"
    out, _ = invite("health", "--count", "3", "--base-url", "https://s.example.org/", "--output", str(target))
    assert out == "" and len(links_of(target.read_text())) == 3


@pytest.mark.parametrize("args, message", [
    (["nope", "--count", "1", "--base-url", "https://x.org"], "no such survey"),
    (["health", "--count", "0", "--base-url", "https://x.org"], "count must be"),
    (["health", "--count", "1", "--base-url", "x.org"], "--base-url must start"),
])
def test_it_refuses_bad_arguments_and_makes_nothing(invitation_only, args, message):
    with pytest.raises(CommandError, match=message):
        invite(*args)
    assert not Invitation.objects.exists()


def test_it_refuses_a_survey_open_to_anyone_with_the_link(survey):
    with pytest.raises(CommandError, match="open to anyone"):
        invite("health", "--count", "2", "--base-url", "https://x.org")
    assert not Invitation.objects.exists()

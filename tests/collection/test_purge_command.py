"""`manage.py purge <slug>`: asks for the slug on a terminal, --yes for scripts, says what it removed."""

import io
import sys

import pytest
from django.core.management import CommandError, call_command

from surveys.collection import invitations
from surveys.collection.models import Invitation, Report, Response, Survey
from surveys.collection.purge import preview
from surveys.history.models import ConfigurationChange


class Terminal(io.StringIO):
    """Standard input typed at a terminal."""

    def isatty(self):
        return True


@pytest.fixture
def invited(responded):
    """`responded` (one response, four reports) with three invitations."""
    invitations.create(responded, 3)
    return responded


def stored(survey):
    return (Response.objects.filter(survey=survey).count(), Report.objects.filter(response__survey=survey).count(),
            Invitation.objects.filter(survey=survey).count())


def purge_command(*args, typed=None, monkeypatch=None):
    if typed is not None:
        monkeypatch.setattr(sys, "stdin", Terminal(typed))
    out = io.StringIO()
    call_command("purge", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("flag", ["--yes", "--no-input", "--noinput"])
def test_a_flag_purges_without_asking_and_prints_what_it_removed(invited, flag, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda *a: pytest.fail("asked despite " + flag))
    planned = preview(invited)
    output = purge_command("health", flag)
    assert stored(invited) == (0, 0, 0)
    assert output == (
        f"Purged health: closed it, then removed 1 response (4 reports), 3 invitations (0 used) "
        f"and its result counters ({planned.tally_rows} tally rows); its questions and options are kept.\n")
    assert Survey.objects.get(pk=invited.pk).status == Survey.Status.CLOSED


def test_typing_the_slug_at_the_terminal_purges(invited, monkeypatch, capsys):
    planned = preview(invited)
    output = purge_command("health", typed="health\n", monkeypatch=monkeypatch)
    assert stored(invited) == (0, 0, 0)
    assert planned.plan() in output  # what will go is shown before the question
    assert output.splitlines()[-1] == str(planned)  # what was removed is what was shown
    assert str(planned).startswith("Purged health: closed it, then removed 1 response (4 reports), 3 invitations")
    assert "Type the survey's slug (health) to confirm: " in capsys.readouterr().out


@pytest.mark.parametrize("typed", ["yes\n", "\n", "Health\n", ""])  # "" is end of input
def test_anything_but_the_slug_cancels_and_removes_nothing(invited, monkeypatch, typed):
    before = stored(invited)
    output = purge_command("health", typed=typed, monkeypatch=monkeypatch)
    assert stored(invited) == before == (1, 4, 3)
    assert Survey.objects.get(pk=invited.pk).status == Survey.Status.OPEN
    assert output.splitlines()[-1] == "Purge cancelled: nothing was removed."


def test_without_a_terminal_or_a_flag_it_refuses_and_removes_nothing(invited, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("health\n"))
    with pytest.raises(CommandError, match="pass --yes"):
        call_command("purge", "health", stdout=io.StringIO())
    assert stored(invited) == (1, 4, 3)


def test_an_unknown_slug_is_an_error(invited):
    with pytest.raises(CommandError, match="no such survey: nope"):
        call_command("purge", "nope", "--yes", stdout=io.StringIO())
    assert stored(invited) == (1, 4, 3)


def test_closing_the_survey_is_in_the_configuration_history(invited):
    call_command("purge", invited.slug, "--yes", stdout=io.StringIO())
    change = ConfigurationChange.objects.get(survey_id=invited.pk)
    assert (change.who, change.changes) == ("manage.py purge", [{"field": "status", "before": "Open",
                                                                  "after": "Closed"}])

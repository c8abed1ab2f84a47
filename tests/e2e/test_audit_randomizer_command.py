"""`manage.py audit_randomizer <url>` audits a running instance from outside."""

import io

import pytest
from django.core.management import CommandError, call_command

from tests.e2e.privacy import EVERY_MECHANISM, survey_with

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_prints_each_questions_claim_bound_and_verdict(live_server):
    survey = survey_with(EVERY_MECHANISM)
    out = io.StringIO()
    call_command("audit_randomizer", f"{live_server.url}/s/{survey.slug}/", draws=20_000, stdout=out)

    lines = out.getvalue().splitlines()
    rows = [line.split() for line in lines[1:1 + len(EVERY_MECHANISM)]]
    assert [int(row[0]) for row in rows] == [q.pk for q in survey.ordered_questions()]
    for row, question in zip(rows, survey.ordered_questions()):
        claimed, bound, verdict = float(row[3]), float(row[4]), row[5]
        assert claimed == pytest.approx(question.mechanism().effective_epsilon, abs=5e-5)
        assert 0 < bound <= claimed and verdict == "pass"
    assert lines[-1].startswith(f"{len(EVERY_MECHANISM)} of {len(EVERY_MECHANISM)} questions pass")


def test_it_fails_clearly_on_a_page_that_is_not_a_survey(live_server):
    with pytest.raises(CommandError, match="answered 404"):
        call_command("audit_randomizer", f"{live_server.url}/s/no-such-survey/", draws=10, stdout=io.StringIO())

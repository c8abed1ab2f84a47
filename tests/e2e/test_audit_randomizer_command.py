"""`python bench/audit_randomizer.py <url>` audits a running instance from outside."""

import io

import pytest

from bench import audit_randomizer
from surveys.collection import plan
from tests.e2e.privacy import EVERY_MECHANISM, survey_with

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_prints_each_questions_claim_bound_and_verdict(live_server):
    survey = survey_with(EVERY_MECHANISM)
    out = io.StringIO()
    assert audit_randomizer.main([f"{live_server.url}/s/{survey.slug}/", "--draws", "20000"], out) == 0

    lines = out.getvalue().splitlines()
    rows = [line.split() for line in lines[1:1 + len(EVERY_MECHANISM)]]
    questions = plan.of(survey).questions
    assert [int(row[0]) for row in rows] == [q.id for q in questions]
    for row, question in zip(rows, questions, strict=True):
        claimed, bound, verdict = float(row[3]), float(row[4]), row[5]
        assert claimed == pytest.approx(question.mechanism.effective_epsilon, abs=5e-5)
        assert 0 < bound <= claimed and verdict == "pass"
    assert lines[-1].startswith(f"{len(EVERY_MECHANISM)} of {len(EVERY_MECHANISM)} questions pass")


def test_it_fails_clearly_on_a_page_that_is_not_a_survey(live_server):
    out = io.StringIO()
    assert audit_randomizer.main([f"{live_server.url}/s/no-such-survey/", "--draws", "10"], out) == 2
    assert "answered 404" in out.getvalue()

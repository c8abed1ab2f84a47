"""`python bench/audit_randomizer.py <url>` audits a running instance from outside: run as a
command in a process of its own (this test process already drives a browser of its own).

These runs check what the command prints and how it exits; the draws' conformity bar (10^5 draws per truth, a
mis-parameterized randomizer caught) is test_randomizer_conformity.py's. 2,000 draws per truth at the command's
alpha of 10^-6 fail the honest page with probability below 10^-6 (Bonferroni over exact intervals); a wrong
--expect hash fails it whatever the draws, so 10 do."""

import subprocess
import sys
from pathlib import Path

import pytest

from surveys.collection import plan
from tests.e2e.privacy import EVERY_MECHANISM, survey_with

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def audit(*args: str) -> subprocess.CompletedProcess:
    """The command, its forms in one tab at a time: against a local server more tabs cost CPU (4 tabs: +50% per
    form, measured) and save no time, since the browser, not the network, is the bottleneck."""
    return subprocess.run([sys.executable, "bench/audit_randomizer.py", "--tabs", "1", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)


def test_it_prints_each_questions_claim_bound_and_verdict_and_every_loaded_scripts_sha256(live_server):
    """Pinned client code (issue 14, items 2 and 7): the audit compares what it was served with --expect."""
    import hashlib

    from django.contrib.staticfiles import finders

    survey = survey_with(EVERY_MECHANISM)
    honest = hashlib.sha256(open(finders.find("js/randomizer.js"), "rb").read()).hexdigest()
    done = audit(f"{live_server.url}/s/{survey.slug}/", "--draws", "2000", "--expect", f"randomizer.js={honest}")
    assert done.returncode == 0, done.stdout + done.stderr

    lines = done.stdout.splitlines()
    rows = [line.split() for line in lines[1:1 + len(EVERY_MECHANISM)]]
    questions = plan.of(survey).questions
    assert [int(row[0]) for row in rows] == [q.id for q in questions]
    for row, question in zip(rows, questions, strict=True):
        claimed, bound, verdict = float(row[3]), float(row[4]), row[5]
        assert row[1] == question.mechanism.sampler()["kind"]
        if question.randomized:
            assert claimed == pytest.approx(question.mechanism.effective_epsilon, abs=5e-5)
        else:  # a direct question: the identity channel, infinite epsilon, and it passes
            assert claimed == float("inf") and "(sent as given)" in " ".join(row[6:])
        assert 0 < bound <= claimed and verdict == "pass", done.stdout  # the whole table, should it fail
    assert f"script {honest}  {live_server.url}/static/js/randomizer.js" in done.stdout
    assert f"pass randomizer.js: {honest}" in done.stdout
    assert "static/js/respond.js" in done.stdout and "static/js/answers.js" in done.stdout
    assert lines[-1].startswith(f"{len(EVERY_MECHANISM)} of {len(EVERY_MECHANISM)} questions pass")


def test_it_fails_clearly_on_a_page_that_is_not_a_survey(live_server):
    done = audit(f"{live_server.url}/s/no-such-survey/", "--draws", "10")
    assert done.returncode == 2 and "answered 404" in done.stdout


def test_it_fails_on_a_script_whose_sha256_is_not_the_one_given_on_its_command_line(live_server):
    import hashlib

    from django.contrib.staticfiles import finders

    survey = survey_with(EVERY_MECHANISM[:2])
    honest = hashlib.sha256(open(finders.find("js/randomizer.js"), "rb").read()).hexdigest()
    wrong = audit(f"{live_server.url}/s/{survey.slug}/", "--draws", "10", "--expect", f"randomizer.js={'0' * 64}")
    assert wrong.returncode == 1 and "FAIL randomizer.js: served " + honest in wrong.stdout
    assert wrong.stdout.splitlines()[-1].startswith("2 of 2 questions pass")  # the hash alone fails it

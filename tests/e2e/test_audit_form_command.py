"""`python bench/audit_randomizer.py <url>` end to end (its default): it fills the real form with known true
answers, presses the real send button, intercepts and aborts the POST (nothing is stored) and tests the
payloads; per question it says how many forms each truth got and the power they give, and it times the
forms; run as a command in a process of its own, as an auditor would. This is the suite's honest pass of the real
form on every mechanism (test_audit_form_page.py plants the dishonest pages).

Power: 40 forms (4 to 20 per truth) on the 8 questions, a family of 606 cells at alpha 10^-3: the honest page fails
with probability at most 7.0e-5 (the exact binomial probability that a cell's interval misses its published
probability, summed over the cells; at the earlier 60 forms 1.2e-4); a page sending the truth is caught by the
two unary questions, as their notes say (at 30 forms it would not be), and by none of the others.
"""

import re

import pytest

from surveys.collection import plan
from surveys.collection.models import Response
from tests.e2e.privacy import EVERY_MECHANISM, survey_with
from tests.e2e.test_audit_randomizer_command import audit

pytestmark = pytest.mark.django_db(transaction=True)
NOTE = re.compile(r" {10}(\d+)-(\d+) forms per truth: a cell off by (\d\.\d{3}) is caught about half the time; "
                  r"a page sending the truth: (caught|NOT caught|sends the truth, as published)")


def test_it_audits_the_payloads_of_the_real_form_and_stores_nothing(live_server):
    survey = survey_with(EVERY_MECHANISM)
    done = audit(f"{live_server.url}/s/{survey.slug}/", "--forms", "40")
    assert done.returncode == 0, done.stdout + done.stderr
    assert Response.objects.count() == 0

    lines = done.stdout.splitlines()
    assert lines[0].split() == ["question", "kind", "k", "claimed", "eps", "eps", "lower", "bound", "result"]
    questions = plan.of(survey).questions
    for n, question in enumerate(questions):
        row, note = lines[1 + 2 * n].split(), NOTE.fullmatch(lines[2 + 2 * n])
        assert int(row[0]) == question.id and row[1] == question.mechanism.sampler()["kind"] and row[5] == "pass"
        assert note, lines[2 + 2 * n]
        options = question.mechanism.k
        assert int(note[1]) == 40 // options and int(note[2]) == -(-40 // options)  # truths in turn
        assert note[4] == ("sends the truth, as published" if not question.randomized else
                           "caught" if question.mechanism.sampler()["kind"] == "unary" else note[4])
    scripts = lines[1 + 2 * len(questions):-1]
    assert {line.rsplit("/", 1)[-1] for line in scripts} == {"answers.js", "epsilon.js", "grid.js", "pending.js",
                                                              "randomizer.js", "relevance.js", "remember.js",
                                                              "respond.js"}
    assert all(re.fullmatch(r"script [0-9a-f]{64}  http://\S+", line) for line in scripts)
    assert re.fullmatch(r"8 of 8 questions pass \(40 forms through the page in \d+\.\d s, \d+ ms per form, "
                        r"family-wise alpha 0\.001\)\.", lines[-1])


def test_it_refuses_no_forms_and_the_two_modes_together():
    url = "http://127.0.0.1:9/s/audit/"  # refused before anything is loaded
    none = audit(url, "--forms", "0")
    assert none.returncode == 2 and "--forms and --draws must be at least 1" in none.stderr
    both = audit(url, "--forms", "10", "--draws", "10")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_a_script_that_served_different_bytes_on_different_loads_fails_the_check():
    import io

    from bench.audit_randomizer import check_scripts

    out = io.StringIO()
    url = "http://host/static/js/randomizer.0123456789ab.js"
    assert check_scripts({url: {"a" * 64, "b" * 64}}, [f"randomizer.js={'a' * 64}"], out) == 1
    assert out.getvalue().splitlines() == [f"script {'a' * 64}  {url}", f"script {'b' * 64}  {url}",
                                           f"FAIL {url}: 2 different bodies on different loads",
                                           f"pass randomizer.js: {'a' * 64}",
                                           f"FAIL randomizer.js: served {'b' * 64}, expected {'a' * 64} ({url})"]

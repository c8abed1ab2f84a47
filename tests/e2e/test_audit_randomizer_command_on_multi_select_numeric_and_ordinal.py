"""`python bench/audit_randomizer.py <url>` on a live survey of multi-select, numeric and ordinal questions: every
question (multi-select, 1-bit mean, discrete Laplace, numeric bins, ordinal levels) passes with its claimed epsilon, the
one the server computes; run in a process of its own, as an auditor would.

Both runs are honest pages; what they must show is a pass and the server's epsilon. The draws' conformity bar (10^5
draws per truth, and planted sampler bugs caught) is test_audit_of_multiselect_onebit_and_dlaplace_samplers.py's; here
2,000 draws
per truth at the command's alpha of 10^-6 fail an honest page with probability below 10^-6 (Bonferroni over exact
intervals). Through the form, 24 forms (8 per truth, 6 for the 4-option questions; family 329 cells at alpha 10^-3)
fail it with probability at most 8.0e-5 (exact binomial tails summed over the cells; 1.2e-4 at the earlier 72),
and test_audit_form_page.py shows, with a page sending the truth, that each input is filled with its truth.
"""

import pytest

from surveys.collection import plan
from tests.e2e.test_audit_randomizer_command import audit

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_new_kind_on_a_live_page_passes_the_audit_with_the_servers_epsilon(live_server, kinds_survey):
    done = audit(f"{live_server.url}/s/{kinds_survey.slug}/", "--draws", "2000")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    questions = plan.of(kinds_survey).questions
    rows = [line.split() for line in lines[1:1 + len(questions)]]
    assert [int(row[0]) for row in rows] == [q.id for q in questions]
    for row, question in zip(rows, questions, strict=True):
        assert row[1] == question.mechanism.sampler()["kind"]
        assert float(row[3]) == pytest.approx(question.mechanism.effective_epsilon, abs=5e-5)
        assert 0 <= float(row[4]) <= float(row[3]) and row[5] == "pass"
    assert lines[-1].startswith("5 of 5 questions pass")


def test_every_new_kind_passes_end_to_end_through_its_inputs(live_server, kinds_survey):
    """Ticks, numbers typed on the grid (a bin's lowest value for the histogram) and ordinal levels, through
    the real form: every question passes, and each truth got its share of the forms."""
    done = audit(f"{live_server.url}/s/{kinds_survey.slug}/", "--forms", "24")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[5] for line in lines[1:11:2]] == ["pass"] * 5
    # multi-select, 1-bit mean and discrete Laplace: 3 audited truths; 4 bins; 4 levels
    assert [line.split()[0] for line in lines[2:11:2]] == ["8-8", "8-8", "8-8", "6-6", "6-6"]
    assert lines[-1].startswith("5 of 5 questions pass (24 forms through the page")

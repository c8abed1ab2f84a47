"""The end-to-end audit (bench/audit_form.py) tests what the page sends, not only the randomizer module: a
respond.js that skips randomizing and posts the true answers fails it, although randomizer.js is the honest
one (and the module-draw mode, which imports only that module, passes it); a page that also posts elsewhere
fails it; every post is aborted, so nothing is stored. The honest page's pass through the real form is
test_audit_form_command.py's (the same audit_forms, through the command an auditor runs, on every mechanism).

Power (computed exactly from the integers: the planted pages here are deterministic, so a miss is a verdict,
not a chance: its probability is 0 at the sizes below). A page sending the truth gives n of n for the cell
"report = truth"; the exact interval excludes the published probability p when p^n < alpha / family / 2. The
survey's channels are chosen weak, so few forms show it: q-RR with q = 1/10 (p = 0.55), 3-option k-RR at epsilon
0.25 (p = 0.391) and 3-option OUE at epsilon 1 (the one-hot pattern 0.5 * (1 - 0.269)^2 = 0.267); the family is
37 cells at alpha 10^-3, and a question catches it from 19, 12 and 9 forms per truth. At 38 forms (19 per truth,
and 12 or 13) every question does; at 36 the q-RR question does not, at 32 the k-RR one neither (the channels of
the earlier version, q = 1/2, epsilon 1 and 4-option OUE, family 77, needed 42, 22 and 8 per truth: 84 forms; it
ran 96). The honest module's draws are tested at alpha 10^-6: a false alarm there has probability below 10^-6
(Bonferroni over exact intervals). The leak is seen in every form, whatever the reports: 2 forms, one per tab.

The planted pages send the same payload for the same truths every time, so their pages go through fewer forms
(SEEN: every truth twice or more, each truth's reports all one value) and the audit's verdict at full size is
`form_audits` on the histograms those forms give at that size (`at_size`): what audit_forms returns after as many
page loads, for a fifth of them.
"""

from decimal import Decimal

import pytest

from bench.audit_form import FormRun, audit_forms, audited_questions, family_size, form_audits, page_config
from bench.audit_randomizer import audit_page
from surveys.collection.models import Response
from tests.e2e.privacy import serve_modified, served_text, survey_with

pytestmark = pytest.mark.django_db(transaction=True)

MECHANISMS = [("yes_no", "qrr", Decimal("0.1"), 2), ("single_choice", "krr", 0.25, 3),
              ("single_choice", "oue", 1.0, 3)]
RANDOMIZE = "reports[String(question.id)] = await reportOf(question, answers[i]);"
SKIP = (RANDOMIZE, "reports[String(question.id)] = answers[i];")
FORMS = 38  # the fewest for every question to catch a page sending the truth (36 are not: the power line)
SEEN = 6  # through the page: each truth of these questions twice or three times


def at_size(page, run, forms, alpha):
    """The audits of `forms` rounds of the deterministic page `run` saw (loaded in `page`): each truth's reports are
    the one value it always gave (checked), or none where it gave no report, and the same problems."""
    questions = audited_questions(page_config(page))
    full = FormRun({}, {}, run.problems, run.seconds, forms)
    for q in questions:
        seen = run.histograms[q["id"]]
        assert all(len(histogram) <= 1 for histogram in seen.values()), seen  # one report per truth: deterministic
        truths = list(seen)
        counts = {x: len(range(i, forms, len(truths))) if seen[x] else 0 for i, x in enumerate(truths)}
        full.forms[q["id"]] = counts
        full.histograms[q["id"]] = {x: {value: counts[x] for value in seen[x]} for x in truths}
    return form_audits(questions, full, alpha, family_size(questions)), full


def skipping(tab):
    serve_modified(tab, "static/js/respond.js", SKIP)


def test_a_page_whose_respond_js_sends_the_truth_fails_with_an_honest_randomizer(live_server, page):
    url = f"{live_server.url}/s/{survey_with(MECHANISMS).slug}/"
    skipping(page)
    page.goto(url)
    assert "= answers[i];" in served_text(page, "/static/js/respond.js")  # the swap took
    assert all(item.result.passed for item in audit_page(page, draws=2_000, alpha=1e-6))  # the module is honest

    _, seen = audit_forms(page, url, SEEN, alpha=1e-3, tabs=1, watch=skipping)
    assert seen.rounds == SEEN and Response.objects.count() == 0
    audits, run = at_size(page, seen, FORMS, alpha=1e-3)
    assert [run.forms[item.question["id"]] for item in audits] == [{0: 19, 1: 19}, {0: 13, 1: 13, 2: 12},
                                                                   {0: 13, 1: 13, 2: 12}]
    for item in audits:
        assert not item.result.passed
        assert item.note.endswith("a page sending the truth: caught")
    # Every report of the yes/no question was the true answer: 19 of 19 for each truth.
    assert "truth 0, report 0: observed 1.00000, published 0.55000" in audits[0].result.failures


def test_the_form_is_filled_with_exactly_the_audited_truths_of_every_kind(live_server, page, kinds_survey):
    """With a respond.js that sends what answers.js read from the inputs, each payload shows what the audit
    typed or ticked: every truth's reports are that truth (a multi-select's bitmask, a grid index, a bin, a
    level); the 1-bit mean's grid indexes other than 0 and 1 are no report it can make, and fail it so.
    Power: the reports are the truths, so the verdicts are certain; at 24 forms the multi-select and discrete
    Laplace questions catch the truth (family 329 cells at alpha 10^-3), the 4-option ones (6 forms per truth)
    cannot, at 12 forms none would."""
    url = f"{live_server.url}/s/{kinds_survey.slug}/"
    skipping(page)
    page.goto(url)
    _, seen = audit_forms(page, url, 12, alpha=1e-3, tabs=1, watch=skipping)  # each truth 3 or 4 times
    assert seen.rounds == 12 and Response.objects.count() == 0
    audits, run = at_size(page, seen, 24, alpha=1e-3)
    kinds = [item.question["sampler"]["kind"] for item in audits]
    assert kinds == ["multiselect", "onebit", "dlaplace", "grr", "grr"]
    multi, onebit, laplace, bins, levels = (run.histograms[item.question["id"]] for item in audits)
    assert multi == {0: {0: 8}, 3: {3: 8}, 12: {12: 8}}  # none, the first two, the last two ticked
    assert laplace == {0: {0: 8}, 10: {10: 8}, 20: {20: 8}}  # 0, 5 and 10 typed on the grid of step 0.5
    assert bins == {b: {b: 6} for b in range(4)} and levels == {v: {v: 6} for v in range(4)}
    assert onebit == {0: {0: 8}, 50: {}, 100: {}}
    assert "truth 50: report 50 is outside what the sampler can produce" in audits[1].result.failures
    # At 24 forms the truth is caught where the power line says so, and only there: 6 forms per truth are too few.
    assert [item.note.rsplit(": ", 1)[1] for item in audits] == ["caught", "n/a", "caught", "NOT caught", "NOT caught"]
    assert [item.result.passed for item in audits] == [False, False, False, True, True]


def test_a_page_that_also_posts_elsewhere_fails_though_its_reports_are_honest(live_server, page):
    url = f"{live_server.url}/s/{survey_with(MECHANISMS).slug}/"
    start = "function randomizedPayload(answers) {"
    leak = (start, f'{start}\n  fetch("/collect/", {{ method: "POST", body: JSON.stringify(answers) }});')

    def leaking(tab):
        serve_modified(tab, "static/js/respond.js", leak)

    leaking(page)
    page.goto(url)
    audits, run = audit_forms(page, url, 2, alpha=1e-3, tabs=1, watch=leaking)
    problem = f"the page sent 1 posts to its endpoint and 1 elsewhere ({live_server.url}/collect/)"
    assert [item.result.failures[-1:] for item in audits] == [(problem,)] * 3
    assert not any(item.result.passed for item in audits) and Response.objects.count() == 0

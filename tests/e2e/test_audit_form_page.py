"""The end-to-end audit (bench/audit_form.py) tests what the page sends, not only the randomizer module: a
respond.js that skips randomizing and posts the true answers fails it, although randomizer.js is the honest
one (and the module-draw mode, which imports only that module, passes it); the honest page passes; every post
is aborted, so nothing is stored."""

from decimal import Decimal

import pytest

from bench.audit_form import audit_forms
from bench.audit_randomizer import audit_page
from surveys.collection.models import Response
from tests.e2e.privacy import serve_modified, served_text, survey_with

pytestmark = pytest.mark.django_db(transaction=True)

MECHANISMS = [("yes_no", "qrr", Decimal("0.5"), 2), ("single_choice", "krr", 1.0, 3),
              ("single_choice", "oue", 1.0, 4)]
RANDOMIZE = "reports[String(question.id)] = await reportOf(question, answers[i]);"
SKIP = (RANDOMIZE, "reports[String(question.id)] = answers[i];")
FORMS = 96  # enough for every question to catch a page sending the truth (72 is not, as the power line says)


def skipping(tab):
    serve_modified(tab, "static/js/respond.js", SKIP)


def test_a_page_whose_respond_js_sends_the_truth_fails_with_an_honest_randomizer(live_server, page):
    url = f"{live_server.url}/s/{survey_with(MECHANISMS).slug}/"
    skipping(page)
    page.goto(url)
    assert "= answers[i];" in served_text(page, "/static/js/respond.js")  # the swap took
    assert all(item.result.passed for item in audit_page(page, draws=20_000, alpha=1e-3))  # the module is honest

    audits, run = audit_forms(page, url, FORMS, alpha=1e-3, tabs=2, watch=skipping)
    assert run.rounds == FORMS and Response.objects.count() == 0
    for item in audits:
        assert not item.result.passed
        assert item.note.endswith("a page sending the truth: caught")
    # Every report of the yes/no question was the true answer: 48 of 48 for each truth.
    assert "truth 0, report 0: observed 1.00000, published 0.75000" in audits[0].result.failures


def test_the_honest_page_passes_and_nothing_is_stored(live_server, page):
    url = f"{live_server.url}/s/{survey_with(MECHANISMS).slug}/"
    page.goto(url)
    audits, run = audit_forms(page, url, 48, alpha=1e-3, tabs=2)
    assert [item.result.failures for item in audits] == [(), (), ()]
    assert all(item.result.passed for item in audits)
    assert [run.forms[item.question["id"]] for item in audits] == [{0: 24, 1: 24}, {0: 16, 1: 16, 2: 16},
                                                                   {0: 12, 1: 12, 2: 12, 3: 12}]
    assert Response.objects.count() == 0


def test_the_form_is_filled_with_exactly_the_audited_truths_of_every_kind(live_server, page, kinds_survey):
    """With a respond.js that sends what answers.js read from the inputs, each payload shows what the audit
    typed or ticked: every truth's reports are that truth (a multi-select's bitmask, a grid index, a bin, a
    level); the 1-bit mean's grid indexes other than 0 and 1 are no report it can make, and fail it so."""
    url = f"{live_server.url}/s/{kinds_survey.slug}/"
    skipping(page)
    page.goto(url)
    audits, run = audit_forms(page, url, 24, alpha=1e-3, tabs=2, watch=skipping)
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
    audits, run = audit_forms(page, url, 12, alpha=1e-3, tabs=2, watch=leaking)
    problem = f"the page sent 1 posts to its endpoint and 1 elsewhere ({live_server.url}/collect/)"
    assert [item.result.failures[-1:] for item in audits] == [(problem,)] * 3
    assert not any(item.result.passed for item in audits) and Response.objects.count() == 0

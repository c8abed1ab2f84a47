"""The audit against a production-mode server (collectstatic's hashed files under gunicorn): it passes the
honest one; when only the hashed randomizer.<hash>.js the page loads returns the true answer (the unhashed
randomizer.js beside it honest, as in issue 14), the page sends the truth end to end and fails, in the module-draw
mode and at the end-to-end audit's size alike. The audit aborts every post: the server's database has no response
afterwards.

Power, exact (the tampered randomizer returns the truth, so its reports are certain): the demo survey's
questions publish p = 0.75 (q-RR, q = 1/2), 0.75 (bit flip, epsilon ln 3) and 0.475 (4-option k-RR, epsilon 1)
for the true report; n of n true reports are flagged when p^n < alpha / 24 / 2 (24 cells at alpha 10^-3), at 38
forms per truth for the yes/no questions and 15 for the 4-option one: 76 forms catch all three (72 catch only the
last), the module-draw mode at any number of draws. The tampered page goes through TAMPERED_FORMS forms end to end:
every report the truth in all of them, which an honest page gives with probability 0.75^12 * 0.75^12 * 0.475^12 =
1.3e-7; the audit's verdict on such a page at 76 forms is then its own rule's (bench/audit_form.power, the note
"a page sending the truth: caught", which test_audit_form_page.py sees the audit keep on a planted page), not
76 more page loads. The honest server's 12 forms (6 and 3 per truth) show the production stack's page, hashed
scripts and intercepted posts working; at that size no exact interval at the level 1 - 10^-3 / 24 can exclude a
published probability, so its false alarm is 0: the statistics are the tampered run's and the development
server's (test_audit_form_command.py)."""

import re
import sqlite3

from bench.audit_form import audit_forms, audited_questions, family_size, page_config, power, truth_report
from ldp.offline.audit import audit_truths
from tests.e2e.production import collected, production_server, replace_in
from tests.e2e.test_audit_randomizer_command import audit

HONEST = 'if (sampler.kind === "direct") return truth; // sent as given'
TRUTHFUL = (HONEST, "return truth; // every answer sent as given")
FORMS = 76  # the fewest that make a page sending the truth fail every demo question (72 do not)
TAMPERED_FORMS = 12  # through the page: every report the truth (an honest page: probability 1.3e-7)
ALPHA = 1e-3  # the end-to-end audit's


def responses(directory):
    with sqlite3.connect(directory / "db.sqlite3") as connection:
        return connection.execute("SELECT COUNT(*) FROM collection_response").fetchone()[0]


def forms_per_truth(sampler, forms):
    """How the audit's rounds share `forms` among the truths (round r gives truth r % their number)."""
    truths = audit_truths(sampler)
    return {x: len(range(i, forms, len(truths))) for i, x in enumerate(truths)}


def test_the_audit_passes_an_honest_production_server_and_fails_one_whose_hashed_randomizer_returns_the_truth(
        tmp_path, page):
    with production_server(tmp_path) as url:
        honest = audit(url, "--forms", "12")
    assert honest.returncode == 0, honest.stdout + honest.stderr
    assert re.search(r"^script [0-9a-f]{64}  http://[^ ]+/static/js/randomizer\.[0-9a-f]{12}\.js$", honest.stdout,
                     re.M)
    assert honest.stdout.splitlines()[-1].startswith("3 of 3 questions pass (12 forms through the page in ")

    # The honest server's collected files, tampered now that it has stopped: no second collectstatic.
    with production_server(tmp_path, lambda directory: replace_in(collected(directory, "js/randomizer.js"),
                                                                  *TRUTHFUL), collect=False) as url:
        assert HONEST in (tmp_path / "static" / "js" / "randomizer.js").read_text()  # only the hashed file lies
        page.goto(url)
        questions = audited_questions(page_config(page))
        _, run = audit_forms(page, url, TAMPERED_FORMS, alpha=ALPHA, tabs=1)
        drawn = audit(url, "--draws", "2000")
    assert run.rounds == TAMPERED_FORMS and not any(run.problems.values())
    for question in questions:  # every form's report was its truth
        sampler = question["sampler"]
        assert run.histograms[question["id"]] == {x: {truth_report(sampler, x): n}
                                                  for x, n in forms_per_truth(sampler, TAMPERED_FORMS).items()}
    # At FORMS forms the audit fails such a page on every question (72 would leave the yes/no ones).
    family = family_size(questions)
    verdicts = {forms: [power(q["sampler"], forms_per_truth(q["sampler"], forms), ALPHA, family)[1]
                        for q in questions] for forms in (FORMS, FORMS - 4)}
    assert verdicts == {FORMS: ["caught"] * 3, FORMS - 4: ["NOT caught", "NOT caught", "caught"]}
    assert drawn.returncode == 1 and drawn.stdout.splitlines()[-1].startswith("0 of 3 questions pass (2,000 draws")
    assert responses(tmp_path) == 0

"""The audit against a production-mode server (collectstatic's hashed files under gunicorn): it passes the
honest one; when only the hashed randomizer.<hash>.js the page loads returns the true answer (the unhashed
randomizer.js beside it honest, as in issue 14), it fails, end to end and in the module-draw mode alike.
The audit aborts every post: the server's database has no response afterwards.

Power, exact (the tampered randomizer returns the truth, so its reports are certain): the demo survey's
questions publish p = 0.75 (q-RR, q = 1/2), 0.75 (bit flip, epsilon ln 3) and 0.475 (4-option k-RR, epsilon 1)
for the true report; n of n true reports are flagged when p^n < alpha / 24 / 2 (24 cells at alpha 10^-3), at 38
forms per truth for the yes/no questions and 15 for the 4-option one: 76 forms catch all three (72 catch only the
last), the module-draw mode at any number of draws. The honest server's 12 forms (6 and 3 per truth) show the
production stack's page, hashed scripts and intercepted posts working; at that size no exact interval at the
level 1 - 10^-3 / 24 can exclude a published probability, so its false alarm is 0 (at the earlier 48 forms it was
at most 4.0e-4, and 48 could not catch a page sending the truth either): the statistics are the tampered run's and
the development server's (test_audit_form_command.py)."""

import re
import sqlite3

from tests.e2e.production import collected, production_server, replace_in
from tests.e2e.test_audit_randomizer_command import audit

HONEST = 'if (sampler.kind === "direct") return truth; // sent as given'
TRUTHFUL = (HONEST, "return truth; // every answer sent as given")
FORMS = "76"  # the fewest that make a page sending the truth fail every demo question (72 do not)


def responses(directory):
    with sqlite3.connect(directory / "db.sqlite3") as connection:
        return connection.execute("SELECT COUNT(*) FROM collection_response").fetchone()[0]


def test_the_audit_passes_an_honest_production_server_and_fails_one_whose_hashed_randomizer_returns_the_truth(
        tmp_path):
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
        tampered = audit(url, "--forms", FORMS)
        drawn = audit(url, "--draws", "2000")
    assert tampered.returncode == 1, tampered.stdout + tampered.stderr
    rows = tampered.stdout.splitlines()
    assert rows[-1].startswith(f"0 of 3 questions pass ({FORMS} forms through the page in ")
    assert "truth 0, report 0: observed 1.00000, published 0.75000" in tampered.stdout  # q = 0.5: p = 0.75
    assert tampered.stdout.count("a page sending the truth: caught") == 3
    assert drawn.returncode == 1 and drawn.stdout.splitlines()[-1].startswith("0 of 3 questions pass (2,000 draws")
    assert responses(tmp_path) == 0

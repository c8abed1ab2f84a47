"""The audit against a production-mode server (collectstatic's hashed files under gunicorn): it passes the
honest one; when only the hashed randomizer.<hash>.js the page loads returns the true answer (the unhashed
randomizer.js beside it honest, as in issue 14), it fails, end to end and in the module-draw mode alike.
The audit aborts every post: the server's database has no response afterwards."""

import re
import sqlite3

from tests.e2e.production import collected, production_server, replace_in
from tests.e2e.test_audit_randomizer_command import audit

HONEST = 'if (sampler.kind === "direct") return truth; // sent as given'
TRUTHFUL = (HONEST, "return truth; // every answer sent as given")
FORMS = "100"  # enough that a page sending the truth fails every demo question (96 would do)


def responses(directory):
    with sqlite3.connect(directory / "db.sqlite3") as connection:
        return connection.execute("SELECT COUNT(*) FROM collection_response").fetchone()[0]


def test_the_audit_passes_an_honest_production_server_and_fails_one_whose_hashed_randomizer_returns_the_truth(
        tmp_path):
    with production_server(tmp_path) as url:
        honest = audit(url, "--forms", "48")
    assert honest.returncode == 0, honest.stdout + honest.stderr
    assert re.search(r"^script [0-9a-f]{64}  http://[^ ]+/static/js/randomizer\.[0-9a-f]{12}\.js$", honest.stdout,
                     re.M)
    assert honest.stdout.splitlines()[-1].startswith("3 of 3 questions pass (48 forms through the page in ")

    with production_server(tmp_path, lambda directory: replace_in(collected(directory, "js/randomizer.js"),
                                                                  *TRUTHFUL)) as url:
        assert HONEST in (tmp_path / "static" / "js" / "randomizer.js").read_text()  # only the hashed file lies
        tampered = audit(url, "--forms", FORMS)
        drawn = audit(url, "--draws", "20000")
    assert tampered.returncode == 1, tampered.stdout + tampered.stderr
    rows = tampered.stdout.splitlines()
    assert rows[-1].startswith(f"0 of 3 questions pass ({FORMS} forms through the page in ")
    assert "truth 0, report 0: observed 1.00000, published 0.75000" in tampered.stdout  # q = 0.5: p = 0.75
    assert tampered.stdout.count("a page sending the truth: caught") == 3
    assert drawn.returncode == 1 and drawn.stdout.splitlines()[-1].startswith("0 of 3 questions pass (20,000 draws")
    assert responses(tmp_path) == 0

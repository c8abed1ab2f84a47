"""The web process imports the Stata and SPSS writers (pandas, pyreadstat) as it starts (surveys/wsgi.py), not
in the first .dta or .sav preparation: there the import took most of the preparation (1.1 s of 1.5 on a busy
machine, against 0.2 s for reports.csv), and on a busier one outlasted the request's EXPORT_WAIT (a 202
"being prepared" after 5.4 s where reports.csv answered in 0.28 s)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from surveys.aggregation.exports import preparation

ROOT = Path(__file__).resolve().parents[3]
STARTED = """
import json, sys
before = [name for name in {writers} if name in sys.modules]
import surveys.wsgi
print(json.dumps([before, [name for name in {writers} if name in sys.modules]]))
"""


def test_a_started_web_process_has_the_stata_and_spss_writers_loaded(tmp_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    env.update(DJANGO_SETTINGS_MODULE="surveys.settings", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    result = subprocess.run([sys.executable, "-c", STARTED.format(writers=preparation.WRITERS)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [[], ["pandas", "pyreadstat"]]


def test_the_writers_loaded_are_what_the_stata_and_spss_files_import():
    source = (ROOT / "surveys" / "aggregation" / "exports" / "stata_spss.py").read_text()
    assert {name for name in ("pandas", "pyreadstat") if f"import {name}" in source} == set(preparation.WRITERS)

"""`python bench/synthetic_bench.py` on a tiny survey: it prints the time to synthesize and the quality report."""

import subprocess
import sys

from tests.bench.engines import ROOT


def test_it_times_synthetic_respondents_and_their_quality_report():
    done = subprocess.run([sys.executable, "bench/synthetic_bench.py", "--n", "1500", "--questions", "12"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "12 questions (12 variables), 1500 responses, 1500 rows", done.stdout
    assert lines[1].startswith("synthesize: ") and lines[1].endswith(" s (goal: 60 s)"), done.stdout
    assert lines[2].startswith("quality report: ") and "standard errors" in lines[2], done.stdout

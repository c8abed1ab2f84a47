"""`python bench/breach_bench.py` on a small survey: a row per question and one for the whole record, each with
the stated accuracy of `ldp.disclosure` and four attacks' achieved accuracies; the Bayes attack within its
interval of the stated figure and no attack above it (seeded, so the same rows every run)."""

import subprocess
import sys
from pathlib import Path

from bench import breach_bench
from ldp.disclosure import breach, record_breach

ROOT = Path(__file__).resolve().parents[2]


def test_the_bayes_attack_achieves_the_stated_accuracy_and_no_attack_beats_it():
    done = subprocess.run([sys.executable, "bench/breach_bench.py", "--n", "3000", "--seed", "3"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("3000 respondents per question") and lines[1].split()[:3] == ["question", "stated",
                                                                                              "bayes"]
    rows = lines[2:-1]
    names = [name for name, _, _ in breach_bench.QUESTIONS] + ["record qrr + krr"]
    assert [row[:24].strip() for row in rows] == names
    stated = [breach(mechanism, prior).attacker_accuracy for _, mechanism, prior in breach_bench.QUESTIONS]
    stated.append(record_breach(list(breach_bench.RECORD[:2]), breach_bench.RECORD[2]).attacker_accuracy)
    for row, figure in zip(rows, stated, strict=True):
        cells = row[24:].split()
        assert cells[0] == f"{figure:.4f}" and cells[-1] == "ok", row
        achieved, low, high = float(cells[1]), float(cells[2].strip("[,")), float(cells[3].strip("]"))
        assert low <= figure <= high and low <= achieved <= high, row
    assert lines[-1].startswith(f"{len(names)} of {len(names)} rows ok")
